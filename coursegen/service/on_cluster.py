"""The service's grading place on a Dask cluster: `coursegen service start --scheduler tcp://HOST:PORT`.

The service keeps one Dask client for its life and grades through the batch's cluster machinery
(grader/scaleout/cluster.py): each file of a claimed submission is one task `grade_chunk(spec,
[job_data(...)])` run in a worker's warm session; its reply is JSON, read and checked by
`read_reply` (nothing a worker builds is unpickled here). The cluster's thread count is the number
of submissions graded at once. Each worker needs the course at the service's course root (a shared
file system or a copy at the same path); a worker with another course refuses (its checks hash
differs) and the submission fails with that reason.

Faults, as a batch meets them: a worker that dies mid-task has the task rescheduled by Dask (up to
`distributed.scheduler.allowed-failures`); a file in KilledWorker runs once more, and if it kills
its worker again it is graded 0 with the `worker_died` reason (a fatal job, as the batch does).
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from grader.reading.submission import Submission
from grader.scaleout.cluster import (
    ClusterError,
    allowed_failures,
    cluster_spec,
    close_session,
    connect,
    grade_chunk,
    job_data,
    killed_job,
    read_reply,
    warm_up,
)
from grader.scaleout.run import GradingRun


@dataclass
class _Task:
    key: Any  # the service's message key (None, submission id, file index)
    spec: dict
    item: dict  # job_data of the file
    deaths: int = 0  # KilledWorker met so far


class ClusterSlots:
    """One Dask client for the service's life; files graded as tasks, their replies turned into
    the messages the service's feeding thread reads from `messages`:

        ("settled", Dask key, None)           a task finished: settle(Dask key) reads it
        ("done", key, [outcome dicts])        a file graded
        ("failed", key, reason)               a worker's refusal, a task that failed
        ("lost", key, reason)                 the scheduler lost the task: the submission is queued again
    """

    def __init__(self, address: str, checks_hash: str):
        self.address = address
        self.checks_hash = checks_hash
        self.client = connect(address)  # ClusterError: the command says it and exits
        self.batch = f"coursegen-service-{uuid.uuid4().hex}"  # names the workers' sessions
        self.messages: queue.Queue = queue.Queue()
        self._tasks: dict[str, _Task] = {}  # Dask key -> the file it grades
        self._futures: dict[str, Any] = {}
        self._count = 0
        self._threads = 0
        self._asked = 0.0
        self._deaths: int | None = None
        self._lock = threading.Lock()

    def spec(self, run: GradingRun) -> dict:
        return cluster_spec(run, self.batch, self.checks_hash)

    # ---- capacity ----------------------------------------------------------------------------

    def threads(self) -> int:
        """The cluster's worker threads (asked of the scheduler at most once a second)."""
        now = time.monotonic()
        if now - self._asked >= 1.0:
            self._asked = now
            try:
                self._threads = sum(self.client.nthreads().values())
            except Exception:  # the scheduler is away: no slot until it answers again
                self._threads = 0
        return self._threads

    def ready(self) -> bool:
        """At least one worker has joined (as last asked)."""
        return self._threads > 0

    def warm(self, run: GradingRun) -> None:
        """Start every connected worker's session of `run` now (pytest, torch, the sandbox)."""
        self.client.run(warm_up, self.spec(run), on_error="ignore")

    # ---- grading -----------------------------------------------------------------------------

    def submit(self, key: Any, run: GradingRun, index: int, submission: Submission) -> None:
        """Grade one file of a submission; its message arrives in `messages` with `key`."""
        self._submit(_Task(key, self.spec(run), job_data(index, submission, run.lang)))

    def _submit(self, task: _Task) -> None:
        with self._lock:
            self._count += 1
            name = f"{self.batch}-{self._count}"
        self._tasks[name] = task
        future = self.client.submit(grade_chunk, task.spec, [task.item], key=name, pure=False, retries=0)
        self._futures[name] = future
        # in a thread of the client: the feeding thread settles it (settle) when it reads the message
        future.add_done_callback(lambda done: self.messages.put(("settled", done.key, None)))

    def settle(self, name: str) -> None:
        """Turn the finished future `name` into its file's message (in the feeding thread)."""
        from distributed.scheduler import KilledWorker

        task, future = self._tasks.pop(name, None), self._futures.pop(name, None)
        if task is None or future is None:
            return
        if future.status == "cancelled":  # the scheduler lost it (restarted, gone): not the submission's fault
            self.messages.put(("lost", task.key, "the Dask scheduler lost its task"))
            return
        try:
            reply = future.result()
        except KilledWorker:
            task.deaths += 1
            if task.deaths == 1:  # perhaps only beside the culprit: once more
                self._submit(task)
            elif task.deaths == 2:  # it kills its worker: 0 with the reason, never run again
                if self._deaths is None:
                    self._deaths = allowed_failures(self.client) + 1
                item = killed_job(task.item, task.spec["lang"], self._deaths)
                self._submit(_Task(task.key, task.spec, item, deaths=2))
            else:
                self.messages.put(("failed", task.key, "the Dask worker died grading even a fatal job"))
            return
        except Exception as exc:  # lost by the scheduler, raised outside grading
            self.messages.put(("failed", task.key, f"a Dask task failed: {type(exc).__name__}: {exc}"))
            return
        try:
            [(_, outcomes)] = read_reply(reply, {task.item["key"]})
        except (ClusterError, ValueError) as exc:  # a refusal (another course) or a malformed reply
            self.messages.put(("failed", task.key, str(exc)))
            return
        self.messages.put(("done", task.key, [asdict(o) for o in outcomes]))

    def close(self) -> None:
        """Cancel what is left, end the workers' sessions of this service, close the client."""
        try:
            self.client.cancel(list(self._futures.values()))
            self.client.run(close_session, self.batch, on_error="ignore")
        except Exception:  # the cluster is going away: its sessions end with their workers
            pass
        self.client.close()
