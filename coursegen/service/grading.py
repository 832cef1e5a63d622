"""The service's graders: warm grading processes fed from the queue in the gradebook.

Each grading process is a batch worker (grader.scaleout.executors.grading_worker: one pytest session, one
sandbox with its warm worker, spawned, never forked from a process that ran torch), fed one
submission at a time. This process reads each file under limits and hands the jobs out
(grader.scaleout.batch.prepare_submission), turns the outcomes into results as a batch does
(grader.scaleout.batch.result_of, then grader.reporting.assignments.combine: one result per
student, as `coursegen grade --assignment` reports), records the run in the gradebook under the
uid `service:<id>` and marks the queue row done. Only this thread writes runs.

A grading process grades in one language (its pytest session's); a submission is graded in the
language it was sent in, by a process of that language (started when first needed).

Where the grading happens is the one thing that differs with `--scheduler`: then no process is
started here; each file is a task on the Dask cluster (coursegen/service/on_cluster.py, through the
batch's grader/scaleout/cluster.py), as many submissions at once as the cluster has threads, and
the replies arrive as the same messages. The queue, the recording, lateness and metrics are the same.
"""

from __future__ import annotations

import multiprocessing
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from grader.course import Course
from grader.reporting.assignments import Definition, combine
from grader.reporting.results import CheckResult, SubmissionResult
from grader.scaleout.batch import Entry, prepare_submission, result_of
from grader.scaleout.executors import grading_worker
from grader.scaleout.run import GradingRun
from coursegen.service.metrics import Metrics
from coursegen.service.store import MAX_ATTEMPTS, ServiceStore, run_uid

if TYPE_CHECKING:
    from coursegen.service.on_cluster import ClusterSlots

LANGS = ("en", "zh")


@dataclass
class _Process:
    number: int
    lang: str
    process: Any
    jobs: Any
    busy: str | None = None  # the submission id it grades
    warm: bool = False


@dataclass
class _InFlight:
    row: dict
    entries: list[Entry]
    submissions: list
    worker: int | None  # the grading process's number; None on a cluster
    outcomes: dict[int, list[CheckResult]] = field(default_factory=dict)


class Graders:
    """`workers` grading processes per language in use (or the slots of a Dask cluster), and the
    thread that feeds them."""

    def __init__(
        self,
        *,
        gradebook: Path,
        course: Course,
        definitions: dict[str, Definition],
        seed: int,
        checks_hash: str,
        uploads: Path,
        workers: int = 1,
        lang: str = "en",
        hide: tuple[str, ...] = (),
        metrics: Metrics | None = None,
        sandbox_factory: str | None = None,
        cluster: ClusterSlots | None = None,
        due: frozenset[str] = frozenset(),
    ):
        self.gradebook, self.course, self.definitions = gradebook, course, definitions
        self.due = due  # the assignments with a due date: each graded submission records its lateness
        self.seed, self.checks_hash, self.uploads = seed, checks_hash, uploads
        self.workers, self.lang, self.hide = workers, lang, hide
        self.metrics = metrics or Metrics()
        self.sandbox_factory = sandbox_factory
        self.cluster = cluster  # grade on its Dask workers instead of processes of this machine
        self._warmed_threads = 0  # the cluster's thread count when its workers were last warmed
        self._cluster_warm = False  # a cluster worker has graded the warm-up submission
        self._context = multiprocessing.get_context("spawn")
        self._results: Any = cluster.messages if cluster is not None else self._context.Queue()
        self._processes: list[_Process] = []
        self._inflight: dict[str, _InFlight] = {}
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._drain = False
        self._langs_wanted: set[str] = {lang}
        self._thread: threading.Thread | None = None
        # called (in the feeding thread) with a submission's id once it is done or failed
        self.on_finished: Callable[[str], None] | None = None
        self.store = ServiceStore(gradebook)

    # ---- life --------------------------------------------------------------------------------

    def start(self) -> None:
        requeued = self.store.requeue_abandoned()
        if requeued:
            print(f"coursegen service: {requeued} submission(s) left 'grading' by a stopped service: queued again")
        for row in self.store._rows(self.store._db(), "status = 'queued'", ()):
            self._langs_wanted.add(row["lang"])
        self._thread = threading.Thread(target=self._run, name="graders", daemon=True)
        self._thread.start()

    def wake(self, lang: str) -> None:
        """A submission in `lang` was accepted."""
        self._langs_wanted.add(lang)
        self._wake.set()

    def ready(self) -> bool:
        """Whether a grading process of the default language has graded its warm-up (on a
        cluster: a worker has joined and graded it)."""
        if self.cluster is not None:
            return self._cluster_warm and self.cluster.ready()
        return any(p.warm and p.lang == self.lang for p in self._processes)

    def stop(self, drain_seconds: float = 30.0) -> None:
        """Stop claiming; let the submissions being graded finish (up to `drain_seconds`; any left
        are graded again at the next start); queued ones stay queued for the next start."""
        self._drain = True
        deadline = time.monotonic() + drain_seconds
        while self._inflight and time.monotonic() < deadline:
            time.sleep(0.05)
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.cluster is not None:
            self.cluster.close()
            return
        for worker in self._processes:
            worker.jobs.put(None)
        for worker in self._processes:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
            worker.jobs.close()
        self._results.close()

    # ---- the feeding thread --------------------------------------------------------------------

    def _run(self) -> None:
        from grader.reporting.gradebook import Gradebook

        book = Gradebook(self.gradebook)  # this thread's own connection: it alone records runs
        last_claim = 0.0
        while not self._stopping.is_set():
            try:
                self._keep_processes()
                if self._wake.is_set() or time.monotonic() - last_claim > 1.0:
                    self._wake.clear()
                    last_claim = time.monotonic()
                    self._claim_for_idle(book)
                try:
                    message = self._results.get(timeout=0.02)
                except queue.Empty:
                    continue
                self._receive(book, *message)
            except Exception as exc:  # noqa: BLE001 - the service keeps grading; the submission says why
                print(f"coursegen service: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                time.sleep(0.5)
        book.close()

    def _receive(self, book: Any, kind: str, key: Any, payload: Any) -> None:
        """One message of a grading process (or of the cluster): a file's outcomes, or why it cannot grade."""
        if kind == "error":  # the process ends; _keep_processes puts its submission back
            print(f"coursegen service: a grading process could not grade: {payload}", file=sys.stderr, flush=True)
            return
        if kind == "settled":  # a cluster task finished: its message follows
            assert self.cluster is not None
            self.cluster.settle(key)
            return
        number, submission_id, index = key
        worker = None if number is None else self._processes[number]
        if worker is None and submission_id == "warm-up":  # the cluster's
            if kind == "done":
                self._cluster_warm = True
            else:  # e.g. a worker with another course: said at start, and the service is not ready
                print(f"coursegen service: the warm-up on the cluster: {payload}", file=sys.stderr, flush=True)
            return
        if kind in ("failed", "lost"):  # on a cluster: a worker refused it (another course), a task failed or was lost
            flight = self._inflight.pop(submission_id, None)
            if flight is None:
                return
            if kind == "lost" and flight.row["attempts"] < MAX_ATTEMPTS:
                print(f"coursegen service: {submission_id}: {payload}; queued again", file=sys.stderr, flush=True)
                self.store.put_back(submission_id)
            else:
                self._close(submission_id, status="failed", reason=str(payload))
                self.metrics.finished("failed", None)
            self._wake.set()
            return
        if worker is not None and submission_id == "warm-up":
            worker.warm = True
            return
        flight = self._inflight.get(submission_id)
        if flight is None:
            return
        flight.outcomes[index] = [CheckResult(**o) for o in payload]
        if len(flight.outcomes) < len(flight.submissions):
            return
        try:
            self._finish(book, flight)
        except Exception as exc:  # noqa: BLE001 - e.g. the checks changed under the service (AssignmentError)
            self._inflight.pop(submission_id, None)
            self._close(submission_id, status="failed", reason=f"{type(exc).__name__}: {exc}")
            self.metrics.finished("failed", None)
        if worker is not None:
            worker.busy = None
        self._wake.set()

    def _start_process(self, lang: str) -> _Process:
        jobs = self._context.Queue()
        process = self._context.Process(
            target=grading_worker,
            args=(self._run_in(lang).spec(), jobs, self._results),
            kwargs={"look_ahead": False},
            daemon=True,
        )
        process.start()
        worker = _Process(len(self._processes), lang, process, jobs)
        self._processes.append(worker)
        warm_up = self._warm_up_submission(lang)
        if warm_up is not None:
            jobs.put(((worker.number, "warm-up", 0), warm_up))
        else:
            worker.warm = True
        return worker

    def _run_in(self, lang: str, definition: Definition | None = None) -> GradingRun:
        """The service's grading run in `lang` (a grading process grades in one language)."""
        return GradingRun(
            course=self.course,
            seed=self.seed,
            lang=lang,
            definition=definition,
            hide=self.hide,
            sandbox_factory=self.sandbox_factory,
        )

    def _warm_up_submission(self, lang: str):
        """The stub of the first assignment's first exercise: graded (and ignored) as soon as a
        process starts, so that the first student's submission finds its checks imported."""
        for definition in self.definitions.values():
            exercise = self.course.registry.by_name.get(definition.names[0])
            if exercise is None:
                continue
            stub = self.course.root / "exercises" / f"{exercise.module}.py"
            if stub.is_file():
                entry = Entry("warm-up", stub, stub.name)
                return prepare_submission(entry, self._run_in(lang, definition))
        return None

    def _keep_processes(self) -> None:
        """Start the processes of every language wanted; replace a process that died, putting its
        submission back in the queue (failed after MAX_ATTEMPTS). On a cluster: warm the workers
        whenever its thread count changes (a worker joined), and have one grade the warm-up
        submission (the service is ready once it is graded)."""
        if self.cluster is not None:
            threads = self.cluster.threads()
            if threads and threads != self._warmed_threads:
                first, self._warmed_threads = not self._warmed_threads, threads
                self.cluster.warm(self._run_in(self.lang))
                warm_up = self._warm_up_submission(self.lang) if first else None
                if warm_up is not None:
                    self.cluster.submit((None, "warm-up", 0), self._run_in(self.lang), 0, warm_up)
                elif first:
                    self._cluster_warm = True
            return
        for worker in self._processes:
            if worker.process.exitcode is None or worker.lang == "dead":
                continue
            if worker.busy is not None:
                flight = self._inflight.pop(worker.busy, None)
                if flight is not None and flight.row["attempts"] >= MAX_ATTEMPTS:
                    self._close(
                        worker.busy,
                        status="failed",
                        reason=f"the grading process stopped {MAX_ATTEMPTS} times while grading it",
                    )
                    self.metrics.finished("failed", None)
                elif flight is not None:
                    self.store.put_back(worker.busy)
            print(f"coursegen service: grading process {worker.number} stopped ({worker.process.exitcode}); restarting")
            lang, worker.lang, worker.busy = worker.lang, "dead", None
            self._langs_wanted.add(lang)
        for lang in sorted(self._langs_wanted):
            alive = [p for p in self._processes if p.lang == lang]
            for _ in range(self.workers - len(alive)):
                self._start_process(lang)

    def _claim_for_idle(self, book: Any) -> None:
        if self._drain:
            return
        if self.cluster is not None:  # one submission per thread of the cluster, in any language
            while len(self._inflight) < self.cluster.threads():
                row = self.store.claim(LANGS)
                if row is None:
                    return
                self._take(book, None, row)
            return
        for worker in self._processes:
            if worker.lang == "dead" or worker.busy is not None:
                continue
            row = self.store.claim((worker.lang,))
            if row is not None:
                self._take(book, worker, row)

    def _take(self, book: Any, worker: _Process | None, row: dict) -> None:
        """A claimed submission: handed out to `worker` (None: the cluster), or done already."""
        if self.store.recorded(row["id"]):  # graded and recorded before a crash: never again
            self._mark_done_from_book(book, row)
            return
        try:
            self._hand_out(worker, row)
        except Exception as exc:  # noqa: BLE001 - its files cannot be handed out: that submission fails
            if worker is not None:
                worker.busy = None
            self._inflight.pop(row["id"], None)
            self._close(row["id"], status="failed", reason=f"{type(exc).__name__}: {exc}")
            self.metrics.finished("failed", None)

    def _hand_out(self, worker: _Process | None, row: dict) -> None:
        definition = self.definitions.get(row["assignment"])
        if definition is None:
            self._close(row["id"], status="failed", reason=f"assignment {row['assignment']!r} is not set any more")
            self.metrics.finished("failed", None)
            return
        folder = self.uploads / row["id"]
        entries = [Entry(row["student"], folder / name, name, folder) for name in row["files"]]
        run = self._run_in(row["lang"], definition)
        submissions = [prepare_submission(entry, run) for entry in entries]
        if worker is None:
            assert self.cluster is not None
            self._inflight[row["id"]] = _InFlight(row, entries, submissions, None)
            for index, submission in enumerate(submissions):
                self.cluster.submit((None, row["id"], index), run, index, submission)
            return
        self._inflight[row["id"]] = _InFlight(row, entries, submissions, worker.number)
        worker.busy = row["id"]
        for index, submission in enumerate(submissions):
            worker.jobs.put(((worker.number, row["id"], index), submission))

    def _finish(self, book: Any, flight: _InFlight) -> None:
        row = flight.row
        definition = self.definitions[row["assignment"]]
        run = self._run_in(row["lang"], definition)
        per_file = [
            result_of(submission, flight.outcomes[i], entry, run)
            for i, (entry, submission) in enumerate(zip(flight.entries, flight.submissions))
        ]
        result = combine(row["student"], per_file, definition)
        result.submission = f"service/{row['id']}/{result.submission}"
        try:
            book.record(result, checks_hash=self.checks_hash, seed=self.seed, uid=run_uid(row["id"]))
        except Exception as exc:  # the uid is recorded already: graded before, keep that run
            if not self.store.recorded(row["id"]):
                raise
            print(f"coursegen service: {row['id']} was recorded already ({exc})", file=sys.stderr)
        self._record_lateness(book, row, result)
        self._done(row, result)
        self._inflight.pop(row["id"], None)

    def _mark_done_from_book(self, book: Any, row: dict) -> None:
        from grader.reporting.gradebook import _result

        runs = book.runs("uid = ?", (run_uid(row["id"]),))
        result = _result(runs[-1])
        self._record_lateness(book, row, result)
        self._done(row, result)

    def _record_lateness(self, book: Any, row: dict, result: SubmissionResult) -> None:
        """The gradebook's lateness row of this submission (the policy applied at receipt: the
        share in `row["penalty"]`, the lateness in `row["lateness"]`), kept apart from the raw
        score; the result carries it. Nothing for an assignment without a due date."""
        definition = self.definitions.get(row["assignment"])
        if definition is None or (row["assignment"] not in self.due and row["lateness"] is None and not row["penalty"]):
            return
        from grader.reporting.lateness import share_of

        penalty, final = share_of(result.score, row["penalty"])
        result.lateness = {
            "submitted_at": row["submitted_at"],
            "late_marked": False,
            "source": "service",
            "raw": result.score,
            "late_by_seconds": row["lateness"],
            "penalty": penalty,
            "final": final,
        }
        book.record_lateness(
            row["student"],
            definition.assignment,
            definition.hash,
            submitted_at=row["submitted_at"],
            late_marked=False,
            late_by=row["lateness"],
            raw=result.score,
            penalty=penalty,
            final=final,
            source="service",
        )

    def _close(self, submission_id: str, **fields: Any) -> None:
        self.store.finish(submission_id, **fields)
        if self.on_finished is not None:
            self.on_finished(submission_id)

    def _done(self, row: dict, result: SubmissionResult) -> None:
        self._close(row["id"], status="done", score=result.score, max_score=result.max_score, result=result.to_dict())
        submitted = datetime.fromisoformat(row["submitted_at"])
        self.metrics.finished("done", (datetime.now(submitted.tzinfo) - submitted).total_seconds())
