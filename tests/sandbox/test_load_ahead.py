"""Sandbox.load_ahead: the child forks, isolates itself and runs the submission while the grader
does something else; wait_loaded() then gives what Sandbox.load gives, limits included."""

from __future__ import annotations

import time

import pytest
import torch

from grader.sandbox import SubmissionLoadError


def test_a_submission_loaded_ahead_answers_calls_like_a_loaded_one(sandbox):
    with sandbox.load_ahead("import torch\ndef double(x):\n    return 2 * x\n", "double.py") as candidate:
        candidate.wait_loaded()
        assert candidate.has("double") and candidate.kind("double") == "function"
        assert torch.equal(candidate.double(torch.arange(3)), torch.tensor([0, 2, 4]))


def test_its_isolation_is_the_same_as_a_loaded_one(sandbox):
    with sandbox.load("x = 1\n") as loaded:
        expected = sorted(loaded.isolation)
    with sandbox.load_ahead("x = 1\n") as ahead:
        ahead.wait_loaded()
        assert sorted(ahead.isolation) == expected and expected


def test_the_import_runs_while_the_grader_is_busy(sandbox):
    """The child's import (0.6 s of sleep) and the grader's own work (0.6 s) overlap."""
    with sandbox.load_ahead("import time\ntime.sleep(0.6)\ndef f():\n    return 1\n") as candidate:
        started = time.monotonic()
        time.sleep(0.6)
        candidate.wait_loaded()
        waited = time.monotonic() - started
        assert candidate.f() == 1
    assert waited < 1.1


def test_a_failing_import_is_raised_by_wait_loaded(sandbox):
    candidate = sandbox.load_ahead("import torch\nraise ValueError('bad start')\n")
    with pytest.raises(SubmissionLoadError, match=r"ValueError at line 2: bad start"):
        candidate.wait_loaded()
    candidate.close()


def test_an_endless_import_is_stopped_counting_from_the_fork(sandbox):
    """import_seconds is 3 s here: the time the grader spends elsewhere is not added to it."""
    candidate = sandbox.load_ahead("while True:\n    pass\n")
    started = time.monotonic()
    time.sleep(2.0)  # the grader checks another submission meanwhile
    with pytest.raises(SubmissionLoadError, match=r"ran longer than 3 s at import"):
        candidate.wait_loaded()
    assert time.monotonic() - started < 3.0 + 0.5 + 1.0  # limit + isolation allowance + slack
    candidate.close()


def test_wait_loaded_twice_is_harmless(sandbox):
    with sandbox.load_ahead("def f():\n    return 3\n") as candidate:
        candidate.wait_loaded()
        candidate.wait_loaded()
        assert candidate.f() == 3
