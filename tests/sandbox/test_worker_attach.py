"""The warm worker's second control socket (grader/sandbox/worker.py, "attach"), which a batch's
partner grading process uses (grader/running/partner.py): a sandbox of its own that asks the same
worker for children, answered on its own socket, and a worker that ends only with its last socket.
A sandbox without a course: its worker preloads nothing, so these run in a second or two."""

from __future__ import annotations

import os
import time

from grader.sandbox import Sandbox
from grader.sandbox.containment import _pidfd_exited
from grader.sandbox.control import WorkerProcess


def _gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        time.sleep(0.05)
    return False


def test_an_attached_sandbox_runs_children_of_the_same_worker_and_outlives_the_first_socket():
    first = Sandbox()
    second = Sandbox()
    try:
        socket_of_second = first.attach_partner()
        worker = first._worker
        assert worker is not None and worker.process is not None
        second.become_partner(socket_of_second)
        assert second._worker is not None and second._worker.process is None  # it launched no worker

        # both ask the one worker for children, each answered on its own socket
        with first.load("def f():\n    return 'first'\n") as a, second.load("def f():\n    return 'second'\n") as b:
            assert (a.f(), b.f()) == ("first", "second")

        # the first grader's socket closes: the worker still serves the second
        worker.sock.close()
        with second.load("def f():\n    return 6 * 7\n") as c:
            assert c.f() == 42
        assert worker.process.poll() is None

        # the last socket closes: the worker ends (closing an attached sandbox never kills it)
        second.close()
        assert _gone(worker.process.pid), "the worker outlived its last control socket"
    finally:
        second.close()
        first.close()


def test_closing_an_attached_worker_closes_its_socket_only():
    sandbox = Sandbox()
    try:
        attached = WorkerProcess.attached(sandbox.attach_partner())
        assert attached.alive()
        attached.close()
        assert not attached.alive()
        with sandbox.load("x = 1\n") as loaded:  # the worker itself goes on
            assert loaded.has("x")
    finally:
        sandbox.close()


def test_a_grader_that_dies_takes_the_children_it_asked_for_with_it():
    """The partner grading process is killed while its child runs: the worker drops its socket and
    kills that child's keeper (its pid namespace with it), and serves the first grader on."""
    first = Sandbox()
    second = Sandbox()
    try:
        second.become_partner(first.attach_partner())
        loaded = second.load("def spin():\n    while True:\n        pass\n")
        keeper = loaded._live_child().containment
        assert not _pidfd_exited(keeper.keeper_fd)
        second._worker.sock.close()  # what its death does to its end of the socket
        deadline = time.monotonic() + 20
        while not _pidfd_exited(keeper.keeper_fd) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _pidfd_exited(keeper.keeper_fd), "the dead grader's child lived on"
        with first.load("def f():\n    return 1\n") as other:
            assert other.f() == 1
    finally:
        second.close()
        first.close()
