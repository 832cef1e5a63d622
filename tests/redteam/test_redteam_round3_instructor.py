"""Red team, round 3 (issue 23): instructor code is bounded too.

A copy of the second course (tests/courses/statistics) gets a catalogued mistake that never
returns, in the two ways instructors write one (a Python loop that never converges; a loop of
tensor operations). `coursegen verify` must fail naming it within its limit, and grading a wrong
submission must end, its checks graded as without that mistake, within the same limit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.nonempty import nonempty

ROOT = Path(os.environ.get("COURSEGEN_REDTEAM_ROOT") or Path(__file__).resolve().parents[2])
COURSE = ROOT / "tests" / "courses" / "statistics"
LIMIT = 2  # instructor_seconds for these runs
LIMITS = f"call_seconds=2,import_seconds=5,total_seconds=20,instructor_seconds={LIMIT}"

LOOPING = """

@mistake(target="mean", id="mean-newton-without-the-2", hint={
    "en": "Your iteration never converges.", "zh": "你的迭代不收敛。"})
def mean(x):
    guess = x[..., 0].clone()
    while True:  # Newton's update without its 2: the step never shrinks
        step = (x - guess[..., None]).sum(dim=-1) / x.shape[-1]
        if bool((step.abs() < 0).all()):
            return guess
        guess = guess + step - step


@mistake(target="median", id="median-python-loop", hint={
    "en": "Your loop never ends.", "zh": "你的循环不会结束。"})
def median(x):
    n = 0
    while n >= 0:
        n += 1
    return x
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("instructor") / "statistics"
    shutil.copytree(COURSE, dest, ignore=shutil.ignore_patterns("_site", ".coursegen-cache", "__pycache__"))
    with open(dest / "solutions" / "mistakes" / "center.py", "a", encoding="utf-8") as handle:
        handle.write(LOOPING)
    return dest


def coursegen(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS=LIMITS)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "coursegen", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )
    return done, time.monotonic() - started


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_verify_fails_naming_a_mistake_that_never_returns(course):
    done, _ = coursegen("verify", "--skip-quizzes", "--module", "center", "--root", str(course), cwd=course)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    lines = {line.split()[1] + " " + line.split()[2]: line for line in done.stdout.splitlines() if "mistake" in line}
    for name in ("mean-newton-without-the-2", "median-python-loop"):
        row = lines[f"mistake {name}"]
        assert "FAIL" in row and f"did not return within {LIMIT} s" in row
    assert "ok" in lines["mistake mean-of-everything"]  # the other mistakes are still proven
    assert "FAIL" not in [line for line in done.stdout.splitlines() if " reference " in line][0]


def test_grading_a_wrong_submission_is_not_held_by_it(course, tmp_path):
    wrong = (course / "solutions" / "center.py").read_text(encoding="utf-8")
    wrong = wrong.replace("return x.sum(dim=-1) / x.shape[-1]", "return x.sum() / x.numel()")
    submission = tmp_path / "center.py"
    submission.write_text(wrong, encoding="utf-8")
    done, _ = coursegen("grade", str(submission), "--root", str(course), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    entry = result[0] if isinstance(result, list) else result
    tests = entry["tests"]
    mean_checks = [t for t in tests if t["exercise"] == "mean"]
    assert mean_checks and not any(t["status"] == "passed" for t in mean_checks if t["max_score"] > 0)
    # the catalogued mistake the submission made is still recognised and its hint shown
    assert any("averaged every value" in t["output"] for t in mean_checks)
    assert any(t["status"] == "passed" for t in tests if t["exercise"] == "median")
    assert "mean-newton-without-the-2 did not return" in done.stderr


def test_a_students_infinite_loop_is_still_reported_per_check(course, tmp_path):
    """The student's own loop: each check of it reports the time limit, the batch is held at most
    total_seconds for it, and the other exercise is graded as usual."""
    honest = (course / "solutions" / "center.py").read_text(encoding="utf-8")
    looping = honest.replace("return x.sum(dim=-1) / x.shape[-1]", "while True:\n        pass")
    submission = tmp_path / "center.py"
    submission.write_text(looping, encoding="utf-8")
    done, seconds = coursegen("grade", str(submission), "--root", str(course), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    tests = (result[0] if isinstance(result, list) else result)["tests"]
    mean_checks = [t for t in tests if t["exercise"] == "mean"]
    assert mean_checks and all(t["status"] == "failed" for t in mean_checks)
    assert all(t["problem"] in ("timeout", "total_time") or t["hidden"] for t in mean_checks)
    assert any("longer than" in t["output"] for t in mean_checks if not t["hidden"])
    assert all(t["status"] == "passed" for t in nonempty(tests) if t["exercise"] == "median")
