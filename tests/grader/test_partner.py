"""grader/running/partner.py: a batch graded by the grading process and a partner forked from it,
sharing its warm worker, through the real sandbox. The oracle is the same batch graded by one
process alone (the partner switched off), which takes a code path the partner does not touch."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from grader.running import partner as partners
from grader.scaleout.batch import run_batch
from grader.scaleout.executors import InProcess
from grader.scaleout.run import GradingRun
from tests.first_course import COURSE

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "submissions"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """Ten students: correct, wrong, stubs, a syntax error, a file that raises on import."""
    folder = tmp_path_factory.mktemp("partner") / "submissions"
    folder.mkdir()
    for name, source in [
        ("alice", "solutions/rope.py"),
        ("bob", "exercises/rope.py"),
        ("carol", "solutions/tokens.py"),
        ("dave", "exercises/tokens.py"),
        ("erin", "solutions/attention.py"),
        ("frank", "solutions/embedding.py"),
        ("grace", "exercises/alibi.py"),
    ]:
        (folder / name).mkdir()
        shutil.copy(ROOT / source, folder / name / Path(source).name)
    rope = (ROOT / "solutions" / "rope.py").read_text()
    (folder / "heidi").mkdir()
    (folder / "heidi" / "rope.py").write_text(rope.replace("out1 = x0 * sin + x1 * cos", "out1 = x0 * cos + x1 * sin"))
    (folder / "ivan").mkdir()
    (folder / "ivan" / "rope.py").write_text("def apply_rope(x, positions=None, base=10000.0:\n")
    (folder / "judy").mkdir()
    (folder / "judy" / "tokens.py").write_text("raise RuntimeError('not today')\n")
    return folder


def grade(folder: Path, book: Path) -> list:
    results = run_batch([folder], GradingRun(course=COURSE, seed=7), InProcess(), gradebook=book, progress=False)
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
def alone(folder, tmp_path_factory) -> list:
    """The oracle: the same batch graded by one process (no partner)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(partners, "MIN_JOBS", 10**9)
        return grade(folder, tmp_path_factory.mktemp("alone") / "g.sqlite")


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_batch_graded_with_a_partner_equals_the_batch_graded_alone(folder, alone, tmp_path, monkeypatch):
    handed = Handed(monkeypatch)
    together = grade(folder, tmp_path / "g.sqlite")
    assert handed.count > 0, "no job went to a partner: the test proves nothing"
    assert together == alone
    assert len(alone) == 10 and any(score for _, _, score, _, _ in alone) and any(not s for _, _, s, _, _ in alone)


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_partner_that_dies_mid_batch_leaves_its_jobs_to_the_first_process(folder, alone, tmp_path, monkeypatch):
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
    assert grade(folder, book) == alone
    assert handed.count >= 2
    import sqlite3

    with sqlite3.connect(book) as db:
        (runs,) = db.execute("select count(*) from runs").fetchone()
    assert runs == len(alone)


@pytest.mark.skipif(partners.cores() < 2, reason="a partner needs two cores")
def test_a_partner_whose_grading_fails_fails_the_batch_with_its_reason(folder, tmp_path, monkeypatch):
    from grader.running.session import GradingDriver, GraderSetupError

    first = os.getpid()
    original = GradingDriver._grade

    def broken(self, *args):
        if os.getpid() != first:
            raise RuntimeError("the partner's own fault")
        return original(self, *args)

    monkeypatch.setattr(GradingDriver, "_grade", broken)
    with pytest.raises(GraderSetupError, match="the partner's own fault"):
        grade(folder, tmp_path / "g.sqlite")
