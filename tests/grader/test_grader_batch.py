"""grader/scaleout/batch.py: discovery, rosters, shards, resume and workers (with the fake sandbox and
the local checks; the real sandbox is in test_grader_end_to_end.py)."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.scaleout.batch import BatchError, discover, parse_shard, read_roster, run_batch, shard_of
from grader.scaleout.executors import LocalPool
from grader.scaleout.run import GradingRun
from grader.reporting.gradebook import Gradebook, merge
from grader_fakes import FakeSandbox
from tests.first_course import COURSE

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"
FAKE = "grader_fakes:fake_sandbox_factory"


@pytest.fixture
def batch(tmp_path) -> Path:
    folder = tmp_path / "submissions"
    folder.mkdir()
    rope, stub = (ROOT / "solutions" / "rope.py").read_text(), (ROOT / "exercises" / "rope.py").read_text()
    (folder / "alice_rope.py").write_text(rope)
    (folder / "bob_rope.py").write_text(stub)
    (folder / "carol").mkdir()
    (folder / "carol" / "rope.py").write_text(rope.replace("out1 = x0 * sin + x1 * cos", "out1 = x1 * cos + x0 * sin"))
    (folder / "carol" / "tokens.py").write_text((ROOT / "solutions" / "tokens.py").read_text())
    (folder / "dave_tokens.py").write_bytes(b"\xff\xfe")
    (folder / "erin_rope.py").write_text("def apply_rope(x, positions=None, base=10000.0):\n    return x\n")
    (folder / "frank").mkdir()
    (folder / ".hidden.py").write_text("x = 1\n")
    for i in range(6):
        (folder / f"s{i}_tokens.py").write_text((ROOT / "solutions" / "tokens.py").read_text())
    return folder


def grade(batch, tmp_path, name="g.sqlite", workers=1, **run):
    run.setdefault("seed", 99)
    return run_batch(
        [batch],
        GradingRun(course=COURSE, checks_dir=CHECKS, sandbox_factory=FAKE, **run),
        LocalPool(workers),
        gradebook=tmp_path / name,
        progress=False,
    )


def summary(results):
    return sorted(
        (r.student, r.submission, r.sha256, r.score, r.max_score, tuple((t.name, t.status) for t in r.tests))
        for r in results
    )


def test_discover_takes_files_and_student_folders_and_skips_hidden(batch):
    entries = discover([batch])
    names = [e.name for e in entries]
    assert "alice_rope.py" in names and "carol/rope.py" in names and "carol/tokens.py" in names
    assert "frank/" in names and ".hidden.py" not in names
    assert {e.student for e in entries if e.name.startswith("carol/")} == {"carol"}
    assert next(e for e in entries if e.name == "alice_rope.py").student == "alice_rope"


def test_roster_maps_names_to_student_ids(batch, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,submission\nA001,alice_rope.py\nC003,carol\n")
    students = {e.name: e.student for e in discover([batch], read_roster(roster))}
    assert students["alice_rope.py"] == "A001" and students["carol/rope.py"] == "C003"
    assert students["bob_rope.py"] == "bob_rope"


def test_roster_with_a_wrong_header_names_the_place(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,file\n")
    with pytest.raises(BatchError, match=r"roster.csv:1:1: expected the header"):
        read_roster(roster)


def test_batch_grades_each_submission(batch, tmp_path):
    results = {r.submission: r for r in grade(batch, tmp_path)}
    assert results["alice_rope.py"].score == 4 and results["carol/rope.py"].score == 4
    assert results["bob_rope.py"].score == 0
    assert results["dave_tokens.py"].score == 0 and "not UTF-8" in results["dave_tokens.py"].problems_in("en")[0]
    assert results["frank/"].score == 0 and results["frank/"].problems


def test_unchanged_batch_is_not_graded_again(batch, tmp_path):
    first = grade(batch, tmp_path)
    loads = FakeSandbox.loads
    second = grade(batch, tmp_path)
    assert FakeSandbox.loads == loads
    assert summary(first) == summary(second)
    with Gradebook(tmp_path / "g.sqlite") as book:
        assert len(book.runs()) == len(first)


def test_changed_submission_is_graded_again(batch, tmp_path):
    grade(batch, tmp_path)
    (batch / "bob_rope.py").write_text((ROOT / "solutions" / "rope.py").read_text())
    loads = FakeSandbox.loads
    results = {r.submission: r for r in grade(batch, tmp_path)}
    assert FakeSandbox.loads == loads + 1 and results["bob_rope.py"].score == 4


def test_resume_with_another_seed_is_refused(batch, tmp_path):
    grade(batch, tmp_path, seed=1)
    with pytest.raises(BatchError, match="another seed"):
        grade(batch, tmp_path, seed=2)


def test_resume_without_seed_uses_the_stored_one(batch, tmp_path):
    grade(batch, tmp_path, seed=5)
    loads = FakeSandbox.loads
    grade(batch, tmp_path, seed=None)
    assert FakeSandbox.loads == loads


def test_shards_partition_the_students_stably():
    students = [f"student{i}" for i in range(200)]
    shards = [shard_of(s, 4) for s in students]
    assert set(shards) == {1, 2, 3, 4}
    assert shards == [shard_of(s, 4) for s in students]


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0"])
def test_bad_shard_specs_are_refused(text):
    with pytest.raises(BatchError):
        parse_shard(text)


def test_four_shards_merged_equal_one_unsharded_run(batch, tmp_path):
    whole = grade(batch, tmp_path, name="whole.sqlite")
    for k in range(1, 5):
        grade(batch, tmp_path, name=f"shard{k}.sqlite", shard=(k, 4))
    merge(tmp_path / "shard1.sqlite", tmp_path / "shard2.sqlite", tmp_path / "m12.sqlite")
    merge(tmp_path / "shard3.sqlite", tmp_path / "shard4.sqlite", tmp_path / "m34.sqlite")
    merge(tmp_path / "m12.sqlite", tmp_path / "m34.sqlite", tmp_path / "all.sqlite")
    with Gradebook(tmp_path / "all.sqlite") as merged, Gradebook(tmp_path / "whole.sqlite") as unsharded:
        assert summary(merged.latest_results()) == summary(unsharded.latest_results()) == summary(whole)
        assert len(merged.runs()) == len(unsharded.runs())


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_batch_killed_half_way_resumes_with_every_submission_graded_once(batch, tmp_path):
    book = tmp_path / "g.sqlite"
    script = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from pathlib import Path\nfrom grader.course import Course\n"
        f"COURSE = Course.load({str(ROOT)!r})\n"
        "from grader.scaleout.batch import run_batch\n"
        "from grader.scaleout.executors import LocalPool\nfrom grader.scaleout.run import GradingRun\n"
        "if __name__ == '__main__':\n"
        f"    run_batch([Path({str(batch)!r})], GradingRun(course=COURSE, seed=3, checks_dir=Path({str(CHECKS)!r}),"
        f" sandbox_factory=sys.argv[1]), LocalPool(1), gradebook=Path({str(book)!r}), progress=False)\n"
    )
    runner = tmp_path / "runner.py"
    runner.write_text(script)
    process = subprocess.Popen([sys.executable, str(runner), "grader_fakes:slow_fake_sandbox_factory"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if book.exists():
            try:
                db = sqlite3.connect(book)
                done = db.execute("SELECT count(*) FROM runs").fetchone()[0]
                db.close()
            except sqlite3.Error:
                done = 0
            if done >= 3:
                break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    total = len(discover([batch]))
    with Gradebook(book) as gradebook:
        assert 3 <= len(gradebook.runs()) < total
    subprocess.run([sys.executable, str(runner), FAKE], check=True)
    with Gradebook(book) as gradebook:
        keys = [(r["student"], r["submission"]) for r in gradebook.runs()]
    assert len(keys) == total and len(set(keys)) == total


@pytest.mark.slow
def test_parallel_workers_give_the_same_results_as_one(batch, tmp_path):
    one = grade(batch, tmp_path, name="one.sqlite", workers=1)
    two = grade(batch, tmp_path, name="two.sqlite", workers=2)
    assert summary(one) == summary(two)


@pytest.mark.parametrize(
    "workers, jobs, cpus, expected",
    [
        (None, 40, 2, 1),  # a class of 20: one process (starting a second costs more than it saves)
        (None, 100, 8, 1),
        (None, 101, 8, 2),
        (None, 1000, 4, 4),
        (None, 0, 2, 0),
        (2, 40, 2, 2),  # asked for: as many as asked
        (4, 3, 8, 3),  # never more than one per submission
    ],
)
def test_batch_uses_one_process_per_hundred_submissions_unless_told(monkeypatch, workers, jobs, cpus, expected):
    from grader.scaleout import executors

    monkeypatch.setattr(executors.os, "cpu_count", lambda: cpus)
    assert executors.process_count(workers, jobs) == expected


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_batch_whose_worker_fails_exits_at_once_with_the_reason(tmp_path):
    """Many jobs still queued (more than a pipe holds) when a grading worker fails: the command
    ends with exit 2 and the worker's reason, instead of waiting forever to flush the queue."""
    folder = tmp_path / "many"
    code = (ROOT / "solutions" / "rope.py").read_text() + "\n# " + "x" * 4000 + "\n"
    for i in range(60):
        (folder / f"s{i:02d}").mkdir(parents=True)
        (folder / f"s{i:02d}" / "rope.py").write_text(code)
    script = (
        f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(Path(__file__).parent)!r}]\n"
        "from pathlib import Path\nfrom grader.course import Course\n"
        f"COURSE = Course.load({str(ROOT)!r})\n"
        "from grader.scaleout.batch import run_batch\nfrom grader.scaleout.grading_process import BatchError\n"
        "from grader.scaleout.executors import LocalPool\nfrom grader.scaleout.run import GradingRun\n"
        "from grader.running.session import GraderSetupError\n"
        "if __name__ == '__main__':\n"
        "    try:\n"
        f"        run_batch([Path({str(folder)!r})], GradingRun(course=COURSE, seed=3, checks_dir=Path({str(CHECKS)!r}),"
        " sandbox_factory='grader_fakes:broken_sandbox_factory'), LocalPool(2), progress=False)\n"
        "    except (BatchError, GraderSetupError) as exc:\n"
        "        print(f'batch failed: {exc}', file=sys.stderr)\n"
        "        sys.exit(2)\n"
    )
    runner = tmp_path / "runner.py"
    runner.write_text(script)
    done = subprocess.run([sys.executable, str(runner)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "the sandbox broke" in done.stderr
