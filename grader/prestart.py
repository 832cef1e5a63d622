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
    discard_early() stop it (and a kept one), when the grading turns out to happen elsewhere (other
                    processes, a cluster), and at exit
    keep(launched, preload)   a ready worker whose sandbox closed with every child ended, kept for
                    this process's next sandbox of the same course (one at most)
    take_kept(preload)        that worker, handed over once; None if there is none, it ended, or
                    it was kept for another course or by another process (a fork of this one)

Keeping a worker is what lets a process that grades again and again (the grading service, a test
suite, a script calling grade_submission in a loop) pay for the worker's imports once. A kept
worker is what a fresh one is: it holds nothing of the runs it served (no reference code, no
checks, no seed, no path to hide: each child's private spec reaches only that child), and every
child of the sandbox that kept it was ended first.

The worker is the same in every way as one launched later (a fresh interpreter, scrubbed
environment, no reference code, no seed): isolation is per child, decided by the spec each
`spawn` request carries. Only the standard library is imported here.

The worker asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG). The kernel
ties that to the parent *thread* that spawned it: launch from the thread that lives as long
as the grading (the main thread), never from a helper thread that ends first.
"""

from __future__ import annotations

import atexit
import os
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
_kept: tuple[Launched, tuple[str, ...], int] | None = None  # (worker, what it imports, the keeping pid)


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
    if _early is None and not _kept_for(preload):
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
        discard(launched)
        return None
    return launched


def discard_early() -> None:
    """Stop a launched worker that no sandbox took, and a kept one (at exit, or when the grading is
    done by other processes): it would hold a core importing torch, or its memory, for nothing."""
    for launched in (take_early(), take_kept()):
        if launched is not None:
            discard(launched)


def keep(launched: Launched, preload: Sequence[str]) -> None:
    """Keep a ready worker (its "ready" read, no request pending) for this process's next sandbox of
    the same course; a worker kept before is stopped. Call it from the main thread only (the worker
    dies with the thread that launched it), once every child it forked for the closing sandbox ended."""
    global _kept
    previous, _kept = _kept, (launched, tuple(preload), os.getpid())
    if previous is not None and previous[2] == os.getpid():
        discard(previous[0])
    atexit.register(discard_early)


def _kept_for(preload: Sequence[str]) -> bool:
    return _kept is not None and _kept[1] == tuple(preload) and _kept[2] == os.getpid() and _kept[0][0].poll() is None


def take_kept(preload: Sequence[str] | None = None) -> Launched | None:
    """The worker `keep` kept, handed over once; None if there is none, it ended, it imports other
    modules than `preload` (when given), or another process kept it (this one is a fork of it: the
    worker is not its child, and its socket is the other process's)."""
    global _kept
    kept, _kept = _kept, None
    if kept is None:
        return None
    launched, kept_preload, keeper = kept
    if keeper != os.getpid():
        launched[1].close()  # this process's copy of the other's socket; the worker is not ours to stop
        return None
    if launched[0].poll() is not None or (preload is not None and tuple(preload) != kept_preload):
        discard(launched)
        return None
    return launched


def discard(launched: Launched) -> None:
    """Stop a worker: one no sandbox took, one kept too long, or one that failed to answer when taken."""
    process, sock = launched
    sock.close()
    if process.poll() is None:
        process.kill()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
