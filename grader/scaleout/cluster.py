"""Grade a batch on an existing Dask distributed cluster: `coursegen grade PATH --scheduler tcp://HOST:PORT`.

The client (grader.scaleout.batch.run_batch) discovers and reads the submissions, skips what the
gradebook holds, and alone writes the gradebook, the reports and the progress bar, exactly as
a local batch does. This module only replaces *where* the remaining submissions are graded:

    client                                           each Dask worker process
    ------                                           ------------------------
    chunks of plain dicts (code, file name,   ──▶    grade_chunk(spec, chunk)
      exercises, key), the course root, the            loads the course at spec["root"] and
      batch seed and the client's                      refuses work unless its checks +
      checks+references hash                           references hash equals the client's;
                                                       grades the chunk in its ONE warm session
    finish(key, outcomes), once per key       ◀──     a JSON string (never a pickled object)

A worker grades the course it is handed (the client's course root, as a path), whatever folder
it was started in: the course must lie at that path on every worker (a shared file system, or a
copy at the same path), and the hash check proves it is the same course. The submissions need
no shared file system: each chunk carries the code the sandboxed child runs and its file name.
Each worker process keeps one warm grading session (a pytest session over the course's checks
and one sandbox, grader.running.session.run_session) for every chunk it runs, keyed by the batch's
course root, seed, language and hidden paths.

Faults. A worker that dies mid-chunk: Dask reschedules the chunk on another worker (up to the
scheduler's `distributed.scheduler.allowed-failures`). A chunk that kills every worker it runs
on ends in KilledWorker: the client grades its submissions one per task; a single submission in
KilledWorker (perhaps only queued on a worker that another one killed) runs once more at the end,
alone on the cluster, and if it still kills its worker it is graded 0 with a one-line reason, never
retried (its zero is recorded, so a resumed batch skips it too). The client records each key once (a result that
arrives twice is dropped), so every submission is graded exactly once in the gradebook; a
client killed mid-batch resumes from the gradebook like a local batch.

Needs the optional extra: pip install 'coursegen[cluster]'.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import threading
import time
import uuid
from dataclasses import asdict
from typing import Any, Callable, Iterator

from grader.course import Course
from grader.scaleout.grading_process import BatchError
from grader.scaleout.run import GradingRun
from grader.feedback import say
from grader.reporting.results import CheckResult
from grader.running.session import GraderSetupError, Job

MAX_CHUNK = 8  # submissions per task: a round trip costs ~10 ms, grading one ~0.1-0.5 s; small
CHUNKS_PER_THREAD = 8  # chunks keep the tail short (Dask hands a worker its next chunk before it is idle)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# every field of grader.reporting.results.CheckResult, with the test its value in a worker's reply must pass
_OUTCOME_FIELDS: dict[str, Callable[[Any], bool]] = {
    "name": lambda v: isinstance(v, str),
    "exercise": lambda v: isinstance(v, str),
    "score": _is_number,
    "max_score": _is_number,
    "status": lambda v: v in ("passed", "failed"),
    "output": lambda v: isinstance(v, str),
    "hidden": lambda v: isinstance(v, bool),
    "mistakes": _is_str_list,  # ids of the catalogued mistakes the output matched
    "problem": lambda v: isinstance(v, str),  # why no answer came (grader/reporting/problems.py)
    "fingerprint": lambda v: isinstance(v, str) and len(v) <= 1200,  # grader/fingerprint.py MAX_CHARS
}


_OPTIONAL_FIELDS = {"fingerprint"}  # a reply may leave it out: no fingerprint ("")


class ClusterError(BatchError):
    """The cluster cannot grade this batch (no scheduler, no worker, a worker with another course)."""


# ---- client side -----------------------------------------------------------------------------


def chunk_size_for(jobs: int, threads: int) -> int:
    """Submissions per chunk for `jobs` submissions on `threads` worker threads."""
    return max(1, min(MAX_CHUNK, math.ceil(jobs / (CHUNKS_PER_THREAD * max(1, threads)))))


def job_data(key: int, submission: Any, lang: str = "en") -> dict:
    """What a worker needs to grade one submission, as plain data (no path, no shared files);
    why it cannot run, in the words of the checks' feedback language `lang`."""
    return {
        "key": key,
        "code": submission.code,
        "filename": submission.path.name,
        "exercises": list(submission.exercises),
        "fatal": None if submission.fatal is None else submission.fatal.text(lang),
    }


def cluster_spec(run: GradingRun, batch: str | None = None, checks_hash: str | None = None) -> dict:
    """The run as data for a Dask worker (grade_chunk, warm_up): a worker grades with its own
    course's checks, proven the same as the client's by their hash (`checks_hash`: computed here
    unless given); `batch`: names the workers' sessions (default a new id)."""
    if checks_hash is None:
        from grader.scaleout.grading_process import checks_hash as hash_of

        checks_hash = hash_of(run.course, run.checks_dir)
    return {**run.spec(), "checks_dir": None, "checks_hash": checks_hash, "batch": batch or uuid.uuid4().hex}


def killed_job(item: dict, lang: str, deaths: int) -> dict:
    """The job (job_data) of a submission that killed its Dask worker `deaths` times: graded 0
    with the reason, never run again."""
    return {**item, "code": None, "fatal": say("worker_died", lang, count=deaths)}


def connect(address: str) -> Any:
    """A Dask client of the scheduler at `address`, or ClusterError saying what is missing. It
    waits as long as Dask's `distributed.comm.timeouts.connect` (30 s; environment variable
    DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--scheduler needs Dask distributed: pip install 'coursegen[cluster]'") from None
    try:
        return Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise ClusterError(
            f"--scheduler {address}: cannot reach the Dask scheduler ({type(exc).__name__}: {exc})"
        ) from None


def grade_on_cluster(
    address: str,
    jobs: list[tuple[int, Any]],
    finish: Callable[[int, list[CheckResult]], None],
    *,
    run: GradingRun,
    chunk_size: int | None = None,
    worker_timeout: float = 600.0,
) -> dict:
    """Grade (key, Submission) pairs with `run` (grader/scaleout/run.py) on the cluster at
    `address` (each worker loads the run's course from its root); `finish(key, outcomes)` once
    per key, in this thread, as results arrive. Returns figures for benchmarks (chunks, chunk
    size, fallbacks)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    pending = {key: job_data(key, submission, run.lang) for key, submission in jobs}
    lang = run.lang
    spec = cluster_spec(run)
    client = connect(address)
    futures: dict[str, tuple[Any, list[dict]]] = {}
    stats = {"chunks": 0, "chunk_size": 0, "split": 0, "worker_died": 0}
    try:
        try:
            client.wait_for_workers(1, timeout=worker_timeout)
        except TimeoutError:
            raise ClusterError(f"--scheduler {address}: no Dask worker joined within {worker_timeout:g} s") from None
        threads = sum(client.nthreads().values())
        size = chunk_size or chunk_size_for(len(pending), threads)
        deaths = allowed_failures(client) + 1
        # start each connected worker's session now (pytest, torch, the sandbox), while chunks travel
        client.run(warm_up, spec, on_error="ignore")
        items = list(pending.values())

        def submit(chunk: list[dict]) -> Any:
            key = f"coursegen-grade-{spec['batch']}-{len(futures)}"
            future = client.submit(grade_chunk, spec, chunk, key=key, pure=False, retries=0)
            futures[key] = (future, chunk)
            return future

        running = as_completed([submit(items[i : i + size]) for i in range(0, len(items), size)], loop=client.loop)
        stats.update(chunks=len(futures), chunk_size=size)
        # A dying worker takes the tasks queued on it down with it: a task in KilledWorker may be
        # innocent. Suspects (single submissions in KilledWorker) are run again at the end, one at
        # a time with nothing else on the cluster, so only a submission killing its worker alone
        # is graded 0.
        suspects: list[dict] = []
        alone: set[str] = set()
        while True:
            for future in _arrivals(running, client, patience=worker_timeout, address=address):
                chunk = futures[future.key][1]
                try:
                    reply = future.result()
                except KilledWorker:
                    if len(chunk) > 1:  # grade them one by one
                        stats["split"] += 1
                        for item in chunk:
                            running.add(submit([item]))
                    elif future.key not in alone:
                        suspects.append(chunk[0])
                    else:  # it killed `deaths` workers on its own: 0, never retried
                        stats["worker_died"] += 1
                        running.add(submit([killed_job(chunk[0], lang, deaths)]))
                    continue
                except Exception as exc:  # the scheduler lost the task, the worker raised outside grading
                    raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
                for key, outcomes in read_reply(reply, {item["key"] for item in chunk}):
                    if pending.pop(key, None) is not None:  # exactly once, whatever arrives twice
                        finish(key, outcomes)
            if not suspects:
                break
            future = submit([suspects.pop(0)])
            alone.add(future.key)
            running.add(future)
        if pending:
            raise ClusterError(f"{len(pending)} submission(s) came back ungraded from the cluster")
        return stats
    finally:
        client.cancel([future for future, _ in futures.values()])
        try:
            client.run(close_session, spec["batch"], on_error="ignore")
        except Exception:  # the cluster is going away: its sessions end with their workers
            pass
        client.close()


def _arrivals(running: Any, client: Any, *, patience: float, address: str) -> Iterator[Any]:
    """The futures of `running` (a Dask as_completed, which may grow meanwhile) as they finish.
    ClusterError once the cluster has had no worker for `patience` seconds while tasks still wait:
    every worker died (a nanny-less worker, a machine gone) and none came back, which Dask itself
    would wait for forever."""
    empty_since: float | None = None
    asked = 0.0
    while not running.is_empty():
        if running.has_ready():
            yield from running.next_batch(block=False)
            continue
        now = time.monotonic()
        if now - asked >= 1.0:  # one question to the scheduler a second, not one per poll
            asked = now
            if client.nthreads():
                empty_since = None
            elif empty_since is None:
                empty_since = now
            elif now - empty_since > patience:
                raise ClusterError(
                    f"--scheduler {address}: every Dask worker left and none joined within {patience:g} s; "
                    "(with --gradebook, the same command resumes where it stopped)"
                )
        time.sleep(0.01)


def allowed_failures(client: Any) -> int:
    """How many times the scheduler reschedules a task whose worker died before KilledWorker."""
    try:
        return int(client.run_on_scheduler(_scheduler_allowed_failures))
    except Exception:
        return 3


def _scheduler_allowed_failures(dask_scheduler: Any) -> int:
    return dask_scheduler.allowed_failures


def read_reply(reply: Any, keys: set[int]) -> list[tuple[int, list[CheckResult]]]:
    """Parse a worker's JSON reply, checking every field's type; ClusterError on a refusal or
    anything malformed."""
    if not isinstance(reply, str):
        raise ClusterError(f"a Dask worker replied with {type(reply).__name__}, expected a JSON string")
    try:
        data = json.loads(reply)
    except ValueError as exc:
        raise ClusterError(f"a Dask worker's reply is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ClusterError("a Dask worker's reply is not a JSON object")
    if "error" in data:
        raise ClusterError(str(data["error"]))
    results = data.get("results")
    if not isinstance(results, list):
        raise ClusterError("a Dask worker's reply has no list of results")
    parsed = []
    for entry in results:
        if not isinstance(entry, dict) or entry.get("key") not in keys or not isinstance(entry.get("outcomes"), list):
            raise ClusterError(f"a Dask worker's reply holds an unexpected result ({str(entry)[:80]})")
        outcomes = []
        for outcome in entry["outcomes"]:
            if (
                not isinstance(outcome, dict)
                or not set(_OUTCOME_FIELDS) - _OPTIONAL_FIELDS <= set(outcome) <= set(_OUTCOME_FIELDS)
                or not all(valid(outcome[f]) for f, valid in _OUTCOME_FIELDS.items() if f in outcome)
            ):
                raise ClusterError(f"a Dask worker's reply holds a malformed check outcome ({str(outcome)[:80]})")
            outcomes.append(CheckResult(**outcome))
        parsed.append((entry["key"], outcomes))
    return parsed


# ---- worker side: one warm session per Dask worker process -----------------------------------

_STOPPED = object()
_WARM_UP = "warm-up"
_session: "WarmSession | None" = None
_session_lock = threading.Lock()
_own_hashes: dict[str, str] = {}  # course root -> the hash of its checks and references on this worker


class WarmSession:
    """One pytest session and one sandbox, in a thread of this worker process, fed job by job.
    The thread lives as long as the session, so the sandbox's warm worker (which dies with the
    thread that started it) lives on between chunks."""

    def __init__(self, spec: dict):
        self.key = session_key(spec)
        self.batch = spec["batch"]
        self._jobs: queue.Queue = queue.Queue()
        self._results: queue.Queue = queue.Queue()
        self._error: str | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, args=(spec,), name="coursegen-grading-session", daemon=True)
        self._thread.start()
        # an empty submission: pytest collects the checks and the sandbox starts, before any chunk
        self._jobs.put(Job(key=_WARM_UP, exercises=(), code="", filename="warm_up.py"))

    def _run(self, spec: dict) -> None:
        from grader.scaleout.grading_process import one_thread, resolve_factory, warm_up_autograd
        from grader.running.session import run_session

        try:
            run = GradingRun.from_spec(spec)  # the client's course, never this worker's folder's
            one_thread(run.course)
            threading.Thread(target=warm_up_autograd, args=(run.course,), daemon=True).start()  # as a local worker does
            run_session(
                iter(self._jobs.get, None),
                lambda job, outcomes: self._results.put((job.key, outcomes)),
                course=run.course,
                seed=spec["seed"],
                lang=run.lang,
                sandbox_factory=resolve_factory(run.sandbox_factory),
                hide=run.hide,
                look_ahead=False,
            )  # grade() waits for results: no look-ahead
        except BaseException as exc:  # handed to the chunk that waits
            self._error = f"{type(exc).__name__}: {exc}"
        finally:
            self._results.put((_STOPPED, None))

    @property
    def alive(self) -> bool:
        return not self._stopped and self._thread.is_alive()

    def grade(self, chunk: list[dict]) -> list[tuple[int, list[CheckResult]]]:
        with self._lock:
            if self._stopped:
                raise GraderSetupError(self._error or "the grading session has stopped")
            for item in chunk:
                self._jobs.put(
                    Job(
                        key=item["key"],
                        exercises=tuple(item["exercises"]),
                        code=item["code"],
                        filename=item["filename"],
                        fatal=item["fatal"],
                    )
                )
            wanted = {item["key"] for item in chunk}
            got: dict[int, list[CheckResult]] = {}
            while len(got) < len(wanted):
                key, outcomes = self._results.get()
                if key is _STOPPED:
                    self._stopped = True
                    raise GraderSetupError(self._error or "the grading session stopped")
                if key in wanted:
                    got[key] = outcomes
            return [(item["key"], got[item["key"]]) for item in chunk]

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=30)


def session_key(spec: dict) -> tuple:
    return (spec["root"], spec["seed"], spec["lang"], spec["sandbox_factory"], tuple(spec["hide"]))


def _session_for(spec: dict) -> WarmSession:
    global _session
    with _session_lock:
        if _session is not None and (_session.key != session_key(spec) or not _session.alive):
            _session.close()
            _session = None
        if _session is None:
            _session = WarmSession(spec)
        _session.batch = spec["batch"]  # a resumed batch (same seed) keeps the warm session
        return _session


def worker_checks_hash(root: str) -> str:
    """The hash of the checks and references of the course at `root` on this worker (computed once)."""
    if root not in _own_hashes:
        from grader.scaleout.grading_process import checks_hash

        _own_hashes[root] = checks_hash(Course.load(root))
    return _own_hashes[root]


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # not inside a Dask task (tests call the functions directly)
        return "this worker"


def _refusal(spec: dict) -> str | None:
    from pathlib import Path

    root = spec["root"]
    if not (Path(root) / "grader" / "checks").is_dir():
        return (
            f"Dask worker {_worker_name()} refuses the batch: no course at {root} (no grader/checks/ there); "
            "every worker needs the client's course folder at the same path (a shared file system or a copy)"
        )
    own = worker_checks_hash(root)
    if own == spec["checks_hash"]:
        return None
    return (
        f"Dask worker {_worker_name()} refuses the batch: the checks and references of its course at {root} "
        f"hash {own}, the client's {spec['checks_hash']}; give every worker the same course folder at that "
        "path and the same coursegen version"
    )


def grade_chunk(spec: dict, chunk: list[dict]) -> str:
    """The Dask task: grade `chunk` in this process's warm session; a JSON string either way."""
    try:
        refusal = _refusal(spec)
        if refusal:
            return json.dumps({"error": refusal})
        graded = _session_for(spec).grade(chunk)
        return json.dumps(
            {"results": [{"key": key, "outcomes": [asdict(o) for o in outcomes]} for key, outcomes in graded]},
            ensure_ascii=False,
        )
    except Exception as exc:  # reported as data: nothing built here is pickled back
        return json.dumps({"error": f"Dask worker {_worker_name()}: {type(exc).__name__}: {exc}"}, ensure_ascii=False)


def warm_up(spec: dict) -> None:
    """Start this worker's session for the batch now. Returns at once (it runs in the worker's
    event loop): the imports, the hash and the session start in a thread."""

    def start() -> None:
        try:
            if _refusal(spec) is None:
                _session_for(spec)
        except Exception as exc:  # the first chunk reports it
            print(f"coursegen: warm-up failed: {exc}", file=sys.stderr)

    threading.Thread(target=start, name="coursegen-warm-up", daemon=True).start()


def close_session(batch: str | None = None) -> None:
    """End this worker's session (its pytest thread and sandbox), if it belongs to `batch` (or any).
    Returns at once (it runs in the worker's event loop); the session finishes in the background."""
    global _session
    with _session_lock:
        if _session is not None and (batch is None or _session.batch == batch):
            threading.Thread(target=_session.close, name="coursegen-close-session", daemon=True).start()
            _session = None
