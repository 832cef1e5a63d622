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


def frames_waiting(sock) -> int:
    """How many whole frames the child has sent that the grader has not read (read with MSG_PEEK:
    they stay for the grader)."""
    import socket

    from grader.sandbox import wire

    try:
        data = sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return 0
    return len(list(wire.FrameReader(max_json=1 << 22, max_blob=1 << 22).feed(data)))


def test_the_import_runs_while_the_grader_is_busy(sandbox):
    """The child imports while the grader does its own work: the import began before the grader
    asked for it (an order of events on the one monotonic clock, not a duration). A look-ahead runs
    at the idle CPU weight, so on a busy machine it may wait for a free moment of a core: the grader
    here sleeps (as a grader waiting on I/O would) until the child's "ready" and "loaded" are on its
    socket, up to a minute, and only then asks."""
    code = "import time\nbegan = time.monotonic()\ndef f():\n    return began\n"
    with sandbox.load_ahead(code) as candidate:
        deadline = time.monotonic() + 60
        while frames_waiting(candidate._child.sock) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        asked = time.monotonic()
        candidate.wait_loaded()
        assert candidate.f() < asked


def test_a_failing_import_is_raised_by_wait_loaded(sandbox):
    candidate = sandbox.load_ahead("import torch\nraise ValueError('bad start')\n")
    with pytest.raises(SubmissionLoadError, match=r"ValueError at line 2: bad start"):
        candidate.wait_loaded()
    candidate.close()


def test_an_endless_import_is_stopped_counting_from_the_fork(sandbox):
    """import_seconds is 3 s of the child's CPU time here, all of it counted from the fork: the
    time the grader spends elsewhere is not added to it. The wall clock is only a backstop, three
    times the limit from the moment the grader asks (a child loaded ahead runs at the idle weight,
    so on a busy machine it may have had little CPU before that). bench/latency.py times the rest."""
    candidate = sandbox.load_ahead("while True:\n    pass\n")
    time.sleep(2.0)  # the grader checks another submission meanwhile
    asked = time.monotonic()
    with pytest.raises(SubmissionLoadError, match=r"ran longer than 3 s at import"):
        candidate.wait_loaded()
    assert time.monotonic() - asked < 3 * 3.0 + 1.0  # the backstop + slack
    candidate.close()


def test_wait_loaded_twice_is_harmless(sandbox):
    with sandbox.load_ahead("def f():\n    return 3\n") as candidate:
        candidate.wait_loaded()
        candidate.wait_loaded()
        assert candidate.f() == 3
