"""A batch graded on two cores by one grader: a partner process forked once the checks are collected.

A batch in one process grades one submission at a time: its loop (the checks' calls to the child,
the comparisons, pytest's protocol) keeps one core busy and the other half idle. A second grading
process started the usual way would import torch, pytest, the checks and the references again,
and its sandbox would launch a second warm worker importing torch: more than a batch of twenty
costs. So the grading process forks itself instead, once pytest has collected the checks and the
sandbox's warm worker is ready: the partner has every import already, and it asks the same warm
worker for its children over a control socket of its own (grader/sandbox/worker.py, "attach").

    first process (pytest session, gradebook)            partner (forked: same session, no gradebook)
        take_shared ---- jobs, one at a time ---> feeder <----- {"next"}      grades with its sandbox
        on_result   <--- results, in this thread <------------- {"done", ...}
        left (jobs it had not finished, if it died) graded here at the end

Both take jobs from one queue as they finish, so a slow submission delays nobody else. Only the
first process writes the gradebook and reports (`on_result` runs in its main thread). Both processes
are the grader's own code, and what crosses between them is data: jobs (a submission's code as the
first process read it) and results (CheckResult fields, JSON), never pickles. Each child is still
its own: its own cgroups, uid and CPU-time limits (grader/sandbox/containment.py), so two children
timed at once on two cores are each charged their own CPU time.

A partner is started only where it pays and is safe: a batch (a list of jobs the caller never waits
on), at least MIN_JOBS submissions, two usable cores, a real sandbox, and no thread of this process
busy at the fork (the fork happens before the first job is taken, from the main thread).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import sys
import threading
from dataclasses import asdict
from typing import Any, Callable, Iterator

from grader.reporting.results import CheckResult

MIN_JOBS = 4  # fewer submissions: one process grades them about as fast
# partners beside the first process (at most one fewer than the cores): on two cores a second partner
# gained nothing (bench/latency.py's batch, 2.46 s against 2.49 s, medians of 8), so one
PARTNERS = 1
_HEADER = 4  # each message: 4-byte big-endian length, then JSON


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# ---- messages between the two processes (both the grader's own) ------------------------------


def _send(sock: socket.socket, message: dict) -> None:
    body = json.dumps(message, separators=(",", ":")).encode()
    sock.sendall(len(body).to_bytes(_HEADER, "big") + body)


def _receive(sock: socket.socket) -> dict | None:
    """The next message, or None when the other end closed."""
    header = _exactly(sock, _HEADER)
    if header is None:
        return None
    body = _exactly(sock, int.from_bytes(header, "big"))
    return None if body is None else json.loads(body)


def _exactly(sock: socket.socket, count: int) -> bytes | None:
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _job_message(job: Any) -> dict:
    return {"exercises": list(job.exercises), "code": job.code, "filename": job.filename, "fatal": job.fatal}


# ---- the first process's side ----------------------------------------------------------------


class SharedJobs:
    """The batch's jobs, taken by this process's loop and by the feeder for the partner."""

    def __init__(self, jobs: Iterator[Any], first: list[Any]):
        self._jobs = jobs
        self._first = list(first)  # taken to count them before the fork
        self._lock = threading.Lock()

    def __iter__(self) -> "SharedJobs":
        return self

    def __next__(self) -> Any:
        with self._lock:
            if self._first:
                return self._first.pop(0)
            return next(self._jobs)


class Partner:
    """The first process's handle on its partner: the feeder thread that hands it jobs and takes
    its results; `deliver` hands finished results to `on_result` in the caller's thread."""

    def __init__(self, pid: int, sock: socket.socket, jobs: SharedJobs, on_result: Callable[[Any, list], None]):
        self.pid, self.sock, self.jobs, self.on_result = pid, sock, jobs, on_result
        self.error: str | None = None
        self._out: dict[int, Any] = {}  # ticket -> job handed to the partner, not yet done
        self._done: queue.SimpleQueue = queue.SimpleQueue()  # (job, results) | None once it ended
        self._ended = False
        self.left: list[Any] = []
        self._thread = threading.Thread(target=self._feed, name="coursegen-partner-feeder", daemon=True)
        self._thread.start()

    def _feed(self) -> None:
        ticket = 0
        try:
            while (message := _receive(self.sock)) is not None:
                if "next" in message:
                    job = next(self.jobs, None)
                    while job is not None and (job.trusted is not None or job.probe):
                        self._done.put((job, None))  # trusted code is graded in the first process
                        job = next(self.jobs, None)
                    if job is None:
                        _send(self.sock, {"end": True})
                        continue
                    ticket += 1
                    self._out[ticket] = job
                    _send(self.sock, {"ticket": ticket, "job": _job_message(job)})
                elif "done" in message:
                    job = self._out.pop(message["done"])
                    self._done.put((job, [CheckResult(**r) for r in message["results"]]))
                elif "error" in message:
                    self.error = str(message["error"])
        except Exception as exc:  # a broken message, or reading the next submission failed: the batch stops
            self.error = self.error or f"the grader failed: {type(exc).__name__}: {exc}"
        finally:
            self._done.put(None)

    def deliver(self, wait: bool = False) -> None:
        """Hand the partner's finished results to on_result; with `wait`, until it has ended. The
        jobs to grade here (trusted ones, any it took and never finished) are kept in `left`."""
        while not self._ended:
            try:
                item = self._done.get() if wait else self._done.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._ended = True
                self.left += list(self._out.values())
                self._out.clear()
                return
            job, results = item
            if results is None:
                self.left.append(job)
            else:
                self.on_result(job, results)

    def finish(self) -> list[Any]:
        """Wait for the partner to grade its last job and end; deliver everything it graded; the
        jobs left for this process. The partner is reaped."""
        self.deliver(wait=True)
        self._thread.join()
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        return self.left

    def kill(self) -> None:
        """This process's grading failed: the partner stops at once."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.sock.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


class Team:
    """The first process's partners, handled as one: `deliver` and `finish` go to each in turn."""

    def __init__(self, partners: list[Partner]):
        self.partners = partners

    @property
    def error(self) -> str | None:
        return next((p.error for p in self.partners if p.error), None)

    def deliver(self) -> None:
        for partner in self.partners:
            partner.deliver()

    def finish(self) -> list[Any]:
        return [job for partner in self.partners for job in partner.finish()]

    def kill(self) -> None:
        for partner in self.partners:
            partner.kill()


def start(
    jobs: Iterator[Any],
    sandbox: Any,
    grade_all: Callable[[Iterator[Any], Callable], str | None],
    on_result: Callable[[Any, list], None],
) -> tuple[Iterator[Any], Team | None]:
    """Fork partners when it pays and is safe; (the jobs this process takes, the team or None).
    `grade_all(jobs, on_result)` is the grading loop, which each partner runs on its own jobs."""
    first_jobs: list[Any] = []
    for job in jobs:
        first_jobs.append(job)
        if len(first_jobs) >= MIN_JOBS:
            break
    shared = SharedJobs(jobs, first_jobs)
    attach = getattr(sandbox, "attach_partner", None)  # stand-in sandboxes of the tests have none
    count = min(PARTNERS, cores() - 1) if cores() >= 2 else 0
    fair = getattr(sandbox, "shares_cpu_fairly", lambda: False)
    if len(first_jobs) < MIN_JOBS or attach is None or count < 1 or not _safe_to_fork() or not fair():
        return shared, None
    forked: list[tuple[int, socket.socket]] = []
    first = os.getpid()
    for _ in range(count):  # all forked before any feeder thread starts
        try:
            worker_sock = attach()
        except Exception:  # no second control socket: grade without (more) partners
            break
        ours, theirs = socket.socketpair()
        try:
            pid = os.fork()
        except OSError:  # no memory for another process
            for end in (ours, theirs, worker_sock):
                end.close()
            break
        if pid == 0:  # a partner: never returns
            ours.close()
            for _, other in forked:
                other.close()
            _partner_main(first, theirs, worker_sock, sandbox, grade_all)
        theirs.close()
        worker_sock.close()
        forked.append((pid, ours))
    if not forked:
        return shared, None
    return shared, Team([Partner(pid, sock, shared, on_result) for pid, sock in forked])


def _safe_to_fork() -> bool:
    """Nothing of this process can hang a fork of it. Torch on more than one thread has started
    libgomp's pool, whose threads a fork leaves behind with their locks (DESIGN.md, known traps): the
    grading process runs it on one (grader.scaleout.grading_process.one_thread). No other Python thread
    may hold a lock the partner needs: only daemon threads known to wait idle may run beside this one
    (a progress bar's monitor, instructor helpers waiting for work)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        return False
    from grader.checking import instructor_limit

    idle = instructor_limit.idle_threads()
    return all(
        thread is threading.main_thread() or thread in idle or type(thread).__name__ == "TMonitor"
        for thread in threading.enumerate()
    )


# ---- the partner's side ----------------------------------------------------------------------


def _partner_main(
    first: int, sock: socket.socket, worker_sock: socket.socket, sandbox: Any, grade_all: Callable
) -> None:
    status = 0
    try:
        from grader.checking import instructor_limit
        from grader.sandbox import isolation

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the first process, which ends this one
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # a batch killed takes this with it
        if os.getppid() != first:  # it died before the line above
            os._exit(1)
        instructor_limit.after_fork()
        sandbox.become_partner(worker_sock)

        def jobs() -> Iterator[Any]:
            while True:
                _send(sock, {"next": True})
                message = _receive(sock)
                if message is None or "end" in message:
                    return
                yield dict(message["job"], key=message["ticket"])  # a Job's fields (grader.running.session)

        def on_result(job: Any, results: list[CheckResult]) -> None:
            _send(sock, {"done": job.key, "results": [asdict(r) for r in results]})

        error = grade_all(jobs(), on_result)
        if error:
            _send(sock, {"error": error})
    except BaseException as exc:  # told to the first process, which fails the batch as for its own
        status = 1
        try:
            _send(sock, {"error": f"the second grading process failed: {type(exc).__name__}: {exc}"})
        except OSError:
            pass
    finally:
        os._exit(status)
