"""Launch the sandbox's warm worker first thing, before the grader imports anything heavy.

Launching the worker is cheap (a fresh interpreter, spawned: milliseconds); getting it ready
is not (for a course that requires torch it imports torch, about as long as the grader's own
`import torch`; it imports what the course's `requires:` names, grader/course_requires.py). The grading
commands therefore launch it before they import torch, pytest, the checks and the references,
so that both imports run at the same time on two cores instead of one after the other. The
first `WorkerProcess` the sandbox creates adopts the launched worker (grader/sandbox/control.py).

    launch(preload)       spawn a warm worker now: (process, control socket); readiness is awaited later
    start_early(preload)  launch one and keep it for the first sandbox of this process (idempotent)
    take_early()    that worker, if it was launched and is still running; else None
    discard_early() stop it, when the grading turns out to happen elsewhere (other processes, a cluster)

The worker is the same in every way as one launched later (a fresh interpreter, scrubbed
environment, no reference code, no seed): isolation is per child, decided by the spec each
`spawn` request carries. Only the standard library is imported here.

The worker asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG). The kernel
ties that to the parent *thread* that spawned it: launch from the thread that lives as long
as the grading (the main thread), never from a helper thread that ends first.
"""

from __future__ import annotations

import atexit
import socket
import subprocess
import sys
from pathlib import Path
from typing import Sequence

PROJECT_ROOT = Path(__file__).resolve().parent.parent
WORKER_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from grader.sandbox.worker import main; main()"
WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    # one thread (no OpenMP/OpenBLAS pool: the worker must be single-threaded to fork safely)
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    # malloc in transparent huge pages: fewer page-table entries, so each fork is cheaper
    "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
}

Launched = tuple[subprocess.Popen, socket.socket]
_early: Launched | None = None
_early_preload: tuple[str, ...] = ()  # what the early worker imports


def launch(preload: Sequence[str]) -> Launched:
    """Spawn a warm worker (a fresh interpreter, never a fork of the grader) without waiting for it.
    It imports `preload` (a course's `Course.preload_modules`: what its `requires:` names)."""
    ours, theirs = socket.socketpair()
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-c", WORKER_BOOT, str(PROJECT_ROOT), str(theirs.fileno()), ",".join(preload)],
            pass_fds=[theirs.fileno()],
            env=dict(WORKER_ENV),
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None,
            start_new_session=True,
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return process, ours


def start_early(preload: Sequence[str]) -> None:
    """Launch the warm worker of this process's first sandbox now (call it from the main thread);
    `preload` must be what that sandbox's course preloads (Course.preload_modules)."""
    global _early, _early_preload
    if _early is None:
        _early, _early_preload = launch(preload), tuple(preload)
        atexit.register(discard_early)


def take_early(preload: Sequence[str] | None = None) -> Launched | None:
    """The worker `start_early` launched, handed over once; None if there is none, it ended, or
    it imports other modules than `preload` (when given: the sandbox's course is another)."""
    global _early
    launched, _early = _early, None
    if launched is not None and (
        launched[0].poll() is not None or (preload is not None and tuple(preload) != _early_preload)
    ):
        _close(launched)
        return None
    return launched


def discard_early() -> None:
    """Stop a launched worker that no sandbox took (at exit, or when the grading is done by other
    processes): it would hold a core importing torch for nothing."""
    launched = take_early()
    if launched is not None:
        _close(launched)


def _close(launched: Launched) -> None:
    process, sock = launched
    sock.close()
    if process.poll() is None:
        process.kill()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
