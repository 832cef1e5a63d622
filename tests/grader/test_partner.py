"""grader/running/partner.py: a batch graded by the grading process and a partner forked from it,
sharing its warm worker, through the real sandbox, on the small torch-free numerics course
(tests/courses/numerics). The oracle is the same batch graded by one process alone (the partner
switched off), which takes a code path the partner does not touch."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from grader.course import Course
from grader.running import partner as partners
from grader.scaleout.batch import run_batch
from grader.scaleout.executors import InProcess
from grader.scaleout.run import GradingRun

NUMERICS = Path(__file__).resolve().parents[1] / "courses" / "numerics"


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


def grade(course: Course, folder: Path, book: Path) -> list:
    results = run_batch([folder], GradingRun(course=course, seed=7), InProcess(), gradebook=book, progress=False)
    return sorted(
        (r.student, r.submission, r.score, r.max_score, [(t.name, t.status, t.output, t.problem) for t in r.tests])
        for r in results
    )


class Handed:
    """Counts the jobs the first process handed to a partner (in the first process)."""

    def __init__(self, monkeypatch):
        self.count = 0
        original = partners._job_message

        def counted(job):
            self.count += 1
            return original(job)

        monkeypatch.setattr(partners, "_job_message", counted)


@pytest.fixture(scope="module")
def alone(course, folder, tmp_path_factory) -> list:
    """The oracle: the same batch graded by one process (no partner)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(partners, "MIN_JOBS", 10**9)
        return grade(course, folder, tmp_path_factory.mktemp("alone") / "g.sqlite")


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_batch_graded_with_a_partner_equals_the_batch_graded_alone(course, folder, alone, tmp_path, monkeypatch):
    handed = Handed(monkeypatch)
    together = grade(course, folder, tmp_path / "g.sqlite")
    assert handed.count > 0, "no job went to a partner: the test proves nothing"
    assert together == alone
    assert len(alone) == 10 and any(score for _, _, score, _, _ in alone) and any(not s for _, _, s, _, _ in alone)


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_partner_that_dies_mid_batch_leaves_its_jobs_to_the_first_process(
    course, folder, alone, tmp_path, monkeypatch
):
    """The partner is killed right after it took its second job: the first process grades what it
    had taken, and every submission is graded exactly once, as alone."""
    first = os.getpid()
    taken = []
    original = partners._receive

    def dying(sock):
        message = original(sock)
        if os.getpid() != first and message and "job" in message:
            taken.append(message["ticket"])
            if len(taken) == 2:
                os._exit(9)  # as a SIGKILL would: no word to the first process
        return message

    monkeypatch.setattr(partners, "_receive", dying)
    handed = Handed(monkeypatch)
    book = tmp_path / "g.sqlite"
    assert grade(course, folder, book) == alone
    assert handed.count >= 2
    import sqlite3

    with sqlite3.connect(book) as db:
        (runs,) = db.execute("select count(*) from runs").fetchone()
    assert runs == len(alone)


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_partner_whose_grading_fails_fails_the_batch_with_its_reason(course, folder, tmp_path, monkeypatch):
    from grader.running.session import GradingDriver, GraderSetupError

    first = os.getpid()
    original = GradingDriver._grade

    def broken(self, *args):
        if os.getpid() != first:
            raise RuntimeError("the partner's own fault")
        return original(self, *args)

    monkeypatch.setattr(GradingDriver, "_grade", broken)
    with pytest.raises(GraderSetupError, match="the partner's own fault"):
        grade(course, folder, tmp_path / "g.sqlite")
