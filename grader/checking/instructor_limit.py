"""Time limits for instructor code: the references and the catalogued mistakes.

They run in the grading process (the trusted side: expected values, and the mistakes whose output
matches a student's, for the hints). A reference or a mistake that never returns (Newton's update
without its 2) would hold the grading of every submission, and `coursegen verify`, without a word.

    bounded(("mistake", "newton-without-the-2"), lambda: runner(mistake.obj))

runs the call in a helper thread of this process (kept for the next call) and waits at most `Limits.instructor_seconds`
(10 s; `COURSEGEN_SANDBOX_LIMITS="instructor_seconds=2"`). Past it, `InstructorTimeout` is raised
in the caller, the label is remembered (`timed_out()`: `coursegen verify` fails naming it, a
grading run prints it), and the helper thread is interrupted: an exception is raised in it at
its next Python instruction (`PyThreadState_SetAsyncExc`), which ends any loop written in Python;
a thread stuck inside one long C call is abandoned (a daemon) and ends when that call returns. The
same code is not run again in this session: a later call with that label fails at once, so one
slow mistake costs the limit once per grading process, never once per submission.

Not a process: forking the grader after torch has run ops hangs the child (DESIGN.md, Known
traps), and a spawned helper would have to receive the checks' inputs and closures as data. A
thread shares the grader's memory, so grad mode (thread-local in torch) is carried over here.
"""

from __future__ import annotations

import contextlib
import ctypes
import queue
import sys
import threading
from typing import Any, Callable, TypeVar
from grader.errors import CoursegenError
from grader.checking.trusted_results import MISSING, key_by_reference

T = TypeVar("T")

Label = tuple[str, str]  # ("mistake", id) | ("reference", name)


class InstructorTimeout(CoursegenError):
    """Instructor code did not return within its limit (a grader problem, not the student's)."""

    kind = "instructor_timeout"

    def __init__(self, label: Label, seconds: float):
        self.label = label
        self.seconds = seconds
        super().__init__(f"the {label[0]} {label[1]} did not return within {seconds:g} s")


class _Interrupted(BaseException):
    """Raised inside a helper thread whose call ran out of time (never seen by a caller)."""


_lock = threading.Lock()
_timed_out: dict[Label, float] = {}
_local = threading.local()
_seconds: float | None = None


_seconds_of: str | None = None  # the $COURSEGEN_SANDBOX_LIMITS the cached limit was read from


def limit_seconds() -> float:
    """Limits.instructor_seconds with $COURSEGEN_SANDBOX_LIMITS applied (the default where that
    variable does not parse: the grading command itself reports it)."""
    global _seconds, _seconds_of
    import os

    from grader.sandbox.limits import ENVIRONMENT_VARIABLE, Limits

    text = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if _seconds is None or _seconds_of != text:
        try:
            _seconds = float(Limits().with_environment().instructor_seconds)
        except ValueError:
            _seconds = float(Limits().instructor_seconds)
        _seconds_of = text
    return _seconds


def reset() -> None:
    """Forget what timed out and re-read the limit (a grading session starts or ends)."""
    global _seconds
    with _lock:
        _timed_out.clear()
    _seconds = None


def idle_threads() -> set[threading.Thread]:
    """The helper threads waiting for work (none of them runs instructor code now)."""
    with _lock:
        return {helper.thread for helper in _idle}


def after_fork() -> None:
    """In a process forked from a grader (grader/running/partner.py): the helper threads stayed
    behind in the first process, so their idle list is dropped; the lock is made anew."""
    global _lock
    _lock = threading.Lock()
    _idle.clear()


def timed_out() -> list[tuple[Label, float]]:
    """The labels that ran out of time since the last reset, with their limit, in order."""
    with _lock:
        return list(_timed_out.items())


def bounded(
    label: Label, call: Callable[[], T], seconds: float | None = None, known: Callable[[], Any] | None = None
) -> T:
    """`call()` within the limit, or InstructorTimeout. Nested calls run inline. `known()`: what
    `call()` returned before (grader.checking.trusted_results), or MISSING: handed out at once
    when there is one, since no instructor code runs (a label that timed out still fails)."""
    if getattr(_local, "inside", False):  # already in a helper thread: its caller's limit holds
        return call()
    limit = limit_seconds() if seconds is None else seconds
    with _lock:
        if label in _timed_out:
            raise InstructorTimeout(label, _timed_out[label])
    if known is not None:
        value = known()
        if value is not MISSING:
            return value
    with _lock:
        helper = _idle.pop() if _idle else _Helper()
    torch = sys.modules.get("torch")  # a course without torch never imports it here
    grad = torch.is_grad_enabled() if torch is not None else True
    job = _Job(call, grad)
    helper.jobs.put(job)
    if not job.done.wait(limit):
        with _lock:
            _timed_out.setdefault(label, limit)
        _interrupt(helper.thread)  # and never used again: a later call gets a fresh helper
        raise InstructorTimeout(label, limit)
    with _lock:
        _idle.append(helper)
    if job.error is not None:
        raise job.error
    return job.value


class _Job:
    def __init__(self, call: Callable[[], Any], grad: bool):
        self.call, self.grad = call, grad
        self.value: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()


class _Helper:
    """A daemon thread that runs instructor calls one after another (starting a thread per call
    cost more than most references take). Idle helpers wait in `_idle`; one whose call ran out of
    time is interrupted and dropped."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="coursegen-instructor", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        _local.inside = True
        try:
            while True:
                self._run(self.jobs.get())
        except _Interrupted:  # its call ran out of time (the interrupt may land after it returned)
            return

    @staticmethod
    def _run(job: _Job) -> None:
        torch = sys.modules.get("torch")
        try:
            with torch.set_grad_enabled(job.grad) if torch is not None else contextlib.nullcontext():
                job.value = job.call()
        except _Interrupted:
            raise
        except BaseException as exc:  # handed to the caller as it is
            job.error = exc
        finally:
            job.done.set()


_idle: list[_Helper] = []


def _interrupt(thread: threading.Thread) -> None:
    ident = thread.ident
    if ident is None or not thread.is_alive():
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(_Interrupted))


def bounded_namespace(namespace: Any) -> Any:
    """The same namespace with each plain function replaced by one that runs it bounded (labelled
    ("reference", name)); classes and other values as they are (their use is bounded where the
    checks compare behaviour, grader.checking.expect_behaviour)."""
    import functools
    import inspect
    import types

    if type(namespace) is not types.SimpleNamespace or getattr(namespace, "_coursegen_bounded", False):
        return namespace  # a recorder or replayer (grader/replay/) is left as it is

    def limited(name: str, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return bounded(("reference", name), lambda: fn(*args, **kwargs))

        key_by_reference(wrapper, fn)  # its results are kept for fn itself, beyond this job
        return wrapper

    values = {
        name: limited(name, value) if inspect.isfunction(value) else value for name, value in vars(namespace).items()
    }
    wrapped = types.SimpleNamespace(**values)
    wrapped._coursegen_bounded = True
    return wrapped
