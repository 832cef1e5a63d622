"""Start-up of a grade: the warm worker is launched once, first, and adopted by the sandbox; the
next submission loads while the current one is checked; the real command ends with its exit
status once its report is written. Real sandbox and real checks (grader/checks)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader import prestart
from grader.running.grade import grade_submission, grade_submissions, new_seed
from grader.reading.submission import load_submission
from tests.first_course import COURSE

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "rope.py"
STUB = ROOT / "exercises" / "rope.py"

pytestmark = pytest.mark.slow


@pytest.fixture
def launches(monkeypatch):
    """Every warm worker launched from now on (the real launch, counted)."""
    prestart.discard_early()  # one an earlier test of this process left (e.g. a CliRunner grade)
    launched = []
    real = prestart.launch

    def counted(preload):
        launched.append(real(preload))
        return launched[-1]

    monkeypatch.setattr(prestart, "launch", counted)
    return launched


def test_one_submission_launches_one_warm_worker(launches):
    result = grade_submission(load_submission(REFERENCE, COURSE), course=COURSE)
    assert result.max_score > 0 and result.score == result.max_score, result.tests
    assert len(launches) == 1


def test_the_sandbox_adopts_the_worker_launched_first_thing(launches):
    prestart.start_early(COURSE.preload_modules)
    assert len(launches) == 1
    early_pid = launches[0][0].pid
    result = grade_submission(load_submission(REFERENCE, COURSE), course=COURSE)
    assert result.score == result.max_score
    assert len(launches) == 1 and launches[0][0].pid == early_pid  # no second worker
    assert prestart.take_early() is None  # handed over once


def test_an_early_worker_nobody_needs_is_stopped_at_exit(launches):
    prestart.start_early(COURSE.preload_modules)
    process = launches[0][0]
    prestart.discard_early()  # what atexit runs
    assert process.poll() is not None


def test_looking_ahead_grades_every_submission_as_if_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSEGEN_SANDBOX_LIMITS", "import_seconds=2")
    raising = tmp_path / "raising" / "rope.py"
    endless = tmp_path / "endless" / "rope.py"
    for path, code in ((raising, "raise RuntimeError('boom at import')\n"), (endless, "while True:\n    pass\n")):
        path.parent.mkdir()
        path.write_text(REFERENCE.read_text() + "\n" + code)
    paths = [REFERENCE, raising, STUB, endless, REFERENCE]
    outcomes = {}
    grade_submissions(
        [(i, load_submission(p, COURSE)) for i, p in enumerate(paths)],
        outcomes.__setitem__,
        seed=new_seed(),
        prestart_sandbox=True,
        look_ahead=True,
        course=COURSE,
    )
    scores = {i: (sum(o.score for o in outs), sum(o.max_score for o in outs)) for i, outs in outcomes.items()}
    assert sorted(outcomes) == [0, 1, 2, 3, 4]
    assert scores[0][0] == scores[0][1] > 0 and scores[4] == scores[0]
    assert scores[1][0] == scores[2][0] == scores[3][0] == 0
    public = [o for o in outcomes[1] if not o.hidden]
    assert public and all("boom at import" in o.output for o in public)
    assert all("longer than 2 s at import" in o.output for o in outcomes[3] if not o.hidden)


def coursegen(*args, cwd):
    """The command run from another folder, naming the course with --root. The installed
    process, not tests/cli.py's run_cli: what it writes before it ends is the point."""
    return subprocess.run(
        ["coursegen", *map(str, args), "--root", str(ROOT)], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def test_the_command_writes_its_whole_report_before_it_ends(tmp_path):
    done = coursegen("grade", STUB, "--format", "json", cwd=tmp_path)  # to a pipe
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] == 0
    report = tmp_path / "out" / "results.json"
    done = coursegen("grade", REFERENCE, "--format", "gradescope", "-o", report, cwd=tmp_path)
    assert done.returncode == 0 and "wrote" in done.stderr
    data = json.loads(report.read_text())
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) > 0


def test_the_command_keeps_its_exit_statuses(tmp_path):
    assert coursegen("grade", STUB, "--fail-under", "50", cwd=tmp_path).returncode == 1
    done = coursegen("grade", STUB, "--module", "nope", cwd=tmp_path)
    assert done.returncode == 2 and "--module 'nope'" in done.stderr


LAUNCH_ORDER = """
import sys
from grader import prestart
real = prestart.launch
def launch(preload):
    print("launched; torch already imported:", "torch" in sys.modules, file=sys.stderr, flush=True)
    return real(preload)
prestart.launch = launch
from coursegen.cli import main
sys.argv = ["coursegen", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("what", ["one file", "a batch graded in this process"])
def test_the_command_launches_its_worker_before_it_imports_torch(tmp_path, what):
    """The worker's `import torch` overlaps the grader's only when it is launched first thing."""
    target = tmp_path / "submissions"
    for student in ("ada", "bo"):
        (target / student).mkdir(parents=True)
        (target / student / "rope.py").write_text(REFERENCE.read_text())
    graded = target / "ada" / "rope.py" if what == "one file" else target
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            LAUNCH_ORDER,
            "grade",
            str(graded),
            "--format",
            "json",
            "-o",
            str(tmp_path / "report.json"),
            "--root",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("launched;") == 1, done.stderr
    assert "launched; torch already imported: False" in done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    report = report if isinstance(report, list) else [report]  # one file: one result
    assert [r["score"] == r["max_score"] > 0 for r in report] == [True] * (1 if what == "one file" else 2)
