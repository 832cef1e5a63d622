"""A sandbox that closes with every child ended keeps its warm worker for this process's next sandbox
of the same course (grader/prestart.py: keep, take_kept): a process that grades again and again pays
for the worker's imports once. A worker is never kept across courses, for another process, or after
a failure. Sandboxes without a course: their worker preloads no course modules, so these run fast."""

from __future__ import annotations

import os

from grader import prestart
from grader.sandbox import Sandbox


def worker_pid(sandbox: Sandbox) -> int:
    with sandbox.load("def f():\n    return 41 + 1\n") as candidate:
        assert candidate.f() == 42
    assert sandbox._worker is not None and sandbox._worker.process is not None
    return sandbox._worker.process.pid


def test_the_next_sandbox_of_the_process_takes_the_kept_worker():
    prestart.discard_early()
    with Sandbox() as first:
        pid = worker_pid(first)
    with Sandbox() as second:
        assert worker_pid(second) == pid
    prestart.discard_early()  # what atexit runs: the kept worker is stopped
    assert prestart.take_kept() is None
    assert not os.path.exists(f"/proc/{pid}")


def test_a_worker_is_not_kept_for_another_course_or_after_leftovers():
    prestart.discard_early()
    with Sandbox() as first:
        pid = worker_pid(first)
    kept = prestart._kept
    assert kept is not None and kept[1] == ()
    assert prestart.take_kept(("torch",)) is None  # another course's preload: stopped, not handed over
    assert prestart.take_kept() is None
    with Sandbox() as failing:
        failed_pid = worker_pid(failing)
        failing.leftovers.append("positions.py: 1 process(es) of the sandboxed child still alive")
    assert failed_pid != pid
    assert prestart.take_kept() is None  # a sandbox that left something of a child keeps nothing


def test_a_forked_process_never_takes_the_worker_its_parent_kept():
    prestart.discard_early()
    with Sandbox() as first:
        worker_pid(first)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the fork: the kept worker is its parent's
        os.close(read)
        os.write(write, b"none" if prestart.take_kept(()) is None else b"taken")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 16)
    os.close(read)
    os.waitpid(child, 0)
    assert answer == b"none"
    launched = prestart.take_kept(())
    assert launched is not None  # still the parent's to hand over
    prestart.discard(launched)
