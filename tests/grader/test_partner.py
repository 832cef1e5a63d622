"""grader/running/partner.py: a batch graded by the grading process and a partner forked from it,
sharing its warm worker, through the real sandbox, on the small torch-free numerics course
(tests/courses/numerics). The oracle is the same batch graded by one process alone (the partner
switched off), which takes a code path the partner does not touch. Each batch runs in a fresh process
(tests/grader/partner_run.py): a partner is forked only where no other thread runs, and this pytest
worker has run other tests' threads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.course import Course
from grader.running import partner as partners

REPO = Path(__file__).resolve().parents[2]
NUMERICS = REPO / "tests" / "courses" / "numerics"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    root = tmp_path_factory.mktemp("numerics") / "numerics"
    shutil.copytree(NUMERICS, root)
    return Course.load(root)


@pytest.fixture(scope="module")
def folder(course, tmp_path_factory) -> Path:
    """Ten students: correct, stubs, a wrong sum, a syntax error, a file that raises on import."""
    folder = tmp_path_factory.mktemp("partner") / "submissions"
    folder.mkdir()
    for name, source in [
        ("alice", "solutions/quadrature.py"),
        ("bob", "exercises/quadrature.py"),
        ("carol", "solutions/running.py"),
        ("dave", "exercises/running.py"),
        ("erin", "solutions/quadrature.py"),
        ("frank", "solutions/running.py"),
        ("grace", "exercises/quadrature.py"),
    ]:
        (folder / name).mkdir()
        shutil.copy(course.root / source, folder / name / Path(source).name)
    quadrature = (course.root / "solutions" / "quadrature.py").read_text()
    (folder / "heidi").mkdir()
    (folder / "heidi" / "quadrature.py").write_text(quadrature.replace("0.5 * f(a) + inner", "f(a) + inner"))
    (folder / "ivan").mkdir()
    (folder / "ivan" / "quadrature.py").write_text("def trapezoid(f, a, b, n:\n")
    (folder / "judy").mkdir()
    (folder / "judy" / "running.py").write_text("raise RuntimeError('not today')\n")
    return folder


def grade(mode: str, course: Course, folder: Path, book: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.grader.partner_run", mode, str(course.root), str(folder), str(book)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def alone(course, folder, tmp_path_factory) -> list:
    """The oracle: the same batch graded by one process (no partner)."""
    graded = grade("alone", course, folder, tmp_path_factory.mktemp("alone") / "g.sqlite")
    assert graded["handed"] == 0
    return graded["results"]


needs_two_cores = pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")


@needs_two_cores
def test_a_batch_graded_with_a_partner_equals_the_batch_graded_alone(course, folder, alone, tmp_path):
    together = grade("together", course, folder, tmp_path / "g.sqlite")
    assert together["handed"] > 0, "no job went to a partner: the test proves nothing"
    assert together["results"] == alone
    scores = [score for _, _, score, _, _ in alone]
    assert len(alone) == 10 and any(scores) and not all(scores)


@needs_two_cores
def test_a_partner_that_dies_mid_batch_leaves_its_jobs_to_the_first_process(course, folder, alone, tmp_path):
    """The partner is killed right after it took its second job: the first process grades what it
    had taken, and every submission is graded exactly once, as alone."""
    book = tmp_path / "g.sqlite"
    graded = grade("dies", course, folder, book)
    assert graded["handed"] >= 2 and graded["results"] == alone
    import sqlite3

    with sqlite3.connect(book) as db:
        (runs,) = db.execute("select count(*) from runs").fetchone()
    assert runs == len(alone)


@needs_two_cores
def test_a_partner_whose_grading_fails_fails_the_batch_with_its_reason(course, folder, tmp_path):
    graded = grade("broken", course, folder, tmp_path / "g.sqlite")
    assert graded["handed"] > 0 and "the partner's own fault" in graded.get("error", "")


def test_no_partner_where_two_timed_children_would_not_each_get_their_own_cpu_clock(course, folder, alone, tmp_path):
    """Without a cgroup CPU clock and weight per child, limits fall back to wall time, which a
    neighbour timed at the same moment could use up: the batch is graded in one process."""
    graded = grade("unfair", course, folder, tmp_path / "g.sqlite")
    assert graded["handed"] == 0 and graded["results"] == alone
