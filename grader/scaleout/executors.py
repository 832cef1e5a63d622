"""Where a grading run's submissions are graded: one interface, three places.

    executor.grade(run, jobs, finish)     grade (key, Submission) pairs with `run` (a GradingRun);
                                          finish(key, outcomes) once per key, in the caller's thread

    InProcess()                  one pytest session in this process
    LocalPool(workers=None)      spawned grading processes on this machine (grading_worker), or this
                                 process when one is enough (process_count)
    Dask(scheduler, chunk_size)  the workers of a Dask cluster (grader/scaleout/cluster.py)

The grading service (coursegen/service/grading.py) is a fourth: it keeps grading_worker processes
warm and feeds them one submission at a time, or (with --scheduler) hands each file to a Dask worker
as a grade_chunk task (coursegen/service/on_cluster.py), one submission per cluster thread. Whatever the executor, the caller alone reads the
submissions, turns outcomes into results and writes the gradebook (grader.scaleout.batch.run_batch).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from grader.reporting.results import CheckResult
from grader.running.session import GraderSetupError
from grader.scaleout.grading_process import BatchError, one_thread, warm_up_autograd
from grader.scaleout.run import GradingRun

if TYPE_CHECKING:
    from grader.reading.submission import Submission

Jobs = list[tuple[int, "Submission"]]
Finish = Callable[[int, list[CheckResult]], None]

# Starting a grading process (an interpreter importing torch and pytest, and its sandbox's warm
# worker importing torch) costs about as much CPU as grading this many submissions in a running
# one, so by default a batch uses one process per this many (up to the CPU count).
SUBMISSIONS_PER_PROCESS = 100


class Executor(Protocol):
    def grade(self, run: GradingRun, jobs: Jobs, finish: Finish) -> None:
        """Grade `jobs` with `run`; `finish(key, outcomes)` once per key."""


@dataclass(frozen=True)
class InProcess:
    """One pytest session and one sandbox in this process."""

    def grade(self, run: GradingRun, jobs: Jobs, finish: Finish) -> None:
        from grader.prestart import start_early

        # the sandbox's warm worker imports torch while this process does (if not yet launched)
        start_early(run.course.preload_modules)
        one_thread(run.course)
        # partner: a batch big enough is graded by this process and one forked from it, sharing
        # its imports and warm worker (grader/running/partner.py)
        run.grade(jobs, finish, prestart_sandbox=any(not submission.fatal for _, submission in jobs), partner=True)


@dataclass(frozen=True)
class LocalPool:
    """`workers` spawned grading processes (default: process_count's choice); one means this process."""

    workers: int | None = None

    def grade(self, run: GradingRun, jobs: Jobs, finish: Finish) -> None:
        count = process_count(self.workers, len(jobs))
        if count != 1:
            from grader.prestart import discard_early

            discard_early()  # launched by the command in case this process grades: it does not
        if count == 1:
            InProcess().grade(run, jobs, finish)
        elif count > 1:
            _grade_in_workers(run, jobs, finish, count)


@dataclass(frozen=True)
class Dask:
    """The workers of the Dask cluster at `scheduler` (tcp://HOST:PORT), in chunks of `chunk_size`
    (default: sized for throughput)."""

    scheduler: str
    chunk_size: int | None = None

    def grade(self, run: GradingRun, jobs: Jobs, finish: Finish) -> None:
        from grader.prestart import discard_early

        discard_early()  # nothing is graded here
        if jobs:
            from grader.scaleout.cluster import grade_on_cluster

            grade_on_cluster(self.scheduler, jobs, finish, run=run, chunk_size=self.chunk_size)


def process_count(workers: int | None, jobs: int) -> int:
    """Grading processes for `jobs` submissions: `workers` (at most one per job), or by default
    one per SUBMISSIONS_PER_PROCESS up to the CPU count. One means this process grades."""
    if jobs <= 0:
        return 0
    if workers is None:
        workers = min(os.cpu_count() or 1, -(-jobs // SUBMISSIONS_PER_PROCESS))
    return max(1, min(workers, jobs))


def _exit_with_parent(parent: int) -> None:
    """A batch killed with SIGKILL leaves its workers orphaned: they stop instead of grading on
    (their results could no longer be recorded; the restarted batch grades those submissions)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(3)


def grading_worker(spec: dict, jobs: Any, results: Any, look_ahead: bool = True) -> None:
    """A grading worker of the run `spec` (GradingRun.spec()): one pytest session, one sandbox,
    jobs until the None sentinel. The course is loaded from the run's root, never guessed from
    this process's folder. `look_ahead`: the job queue is filled before the worker starts (a
    batch); the grading service (coursegen/service) feeds it one submission at a time, so it
    never reads ahead."""
    from grader.prestart import start_early

    run = GradingRun.from_spec(spec)
    start_early(run.course.preload_modules)  # the sandbox's warm worker imports torch while this process does
    one_thread(run.course)
    threading.Thread(target=warm_up_autograd, args=(run.course,), daemon=True).start()
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()

    def send(index: int, outcomes: list[CheckResult]) -> None:
        results.put(("done", index, [asdict(o) for o in outcomes]))

    try:
        # look_ahead: the queue holds every job (and the sentinels) before the workers start
        run.grade(iter(jobs.get, None), send, prestart_sandbox=True, look_ahead=look_ahead)
    except Exception as exc:  # reported to the parent, which stops the batch
        results.put(("error", -1, f"{type(exc).__name__}: {exc}"))
    # Done, the sandbox closed: once the results are flushed to the parent, end at once rather
    # than tear down an interpreter holding torch and pytest (a second or more the parent waits).
    results.close()
    results.join_thread()
    os._exit(0)


def _grade_in_workers(run: GradingRun, jobs: Jobs, finish: Finish, count: int) -> None:
    context = multiprocessing.get_context("spawn")
    job_queue, result_queue = context.Queue(), context.Queue()
    for job in jobs:
        job_queue.put(job)
    for _ in range(count):
        job_queue.put(None)
    processes = [
        context.Process(target=grading_worker, args=(run.spec(), job_queue, result_queue), daemon=True)
        for _ in range(count)
    ]
    for process in processes:
        process.start()
    pending = {index for index, _ in jobs}
    try:
        while pending:
            try:
                kind, index, payload = result_queue.get(timeout=1.0)
            except queue.Empty:
                if all(p.exitcode is not None for p in processes):
                    raise BatchError(
                        f"the grading workers stopped with {len(pending)} submission(s) ungraded "
                        f"(exit codes {[p.exitcode for p in processes]})"
                    ) from None
                continue
            if kind == "error":
                raise GraderSetupError(payload)
            pending.discard(index)
            finish(index, [CheckResult(**o) for o in payload])
    finally:
        for process in processes:
            process.join(timeout=5 if not pending else 0.1)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        if pending:  # jobs nobody will read: without this, exit would wait on the queue's pipe forever
            job_queue.cancel_join_thread()
        job_queue.close()
        result_queue.close()
