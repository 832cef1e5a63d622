"""`coursegen verify`, `coursegen quiz verify` and `coursegen stubs` say what they do (item 8 of issue 12)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from coursegen.commands.verify import VerifyProgress
from tests.cli import Ran, run_cli

REPO = Path(__file__).resolve().parents[2]


def coursegen(*args: str, cwd: Path = REPO) -> Ran:
    return run_cli(*args, cwd=cwd)


def test_quiz_verify_prints_a_line_per_quiz_and_per_generated_question(course):
    result = coursegen("quiz", "verify", "--root", str(course))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "quiz mini: quality gate over 10 question(s)"
    assert any(line.startswith("  ") and ": ok (" in line and "parameter combination(s)" in line for line in lines)
    assert lines[-1] == "quiz mini: ok"
    assert result.stdout == "OK: every quiz passes the quality gate; every generated key agrees with its oracle.\n"


def test_stubs_check_says_what_it_checked():
    from tests.first_course import MODULES  # one stub per module of the registry, the source of truth

    result = coursegen("stubs", "--check")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"OK: checked {len(MODULES)} stub(s) in exercises/ against solutions/; all up to date.\n"


def test_verify_progress_writes_one_plain_line_per_finished_module(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", stream)
    with VerifyProgress() as progress:
        progress.begin({"tokens": 2, "rope": 1})
        progress("tokens", "reference", 1, 2)
        progress("tokens", "stub", 2, 2)
        progress("rope", "reference", 1, 1)
    lines = stream.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "verify: grading 3 subject(s) of 2 module(s) in one sandboxed session",
        "verify: module tokens: 2 subject(s) graded",
        "verify: module rope: 1 subject(s) graded",
    ]
