"""`coursegen service start --scheduler`: the service grades on a Dask cluster. A real `dask
scheduler` and one `dask worker` (two threads) on 127.0.0.1, a real service process connected to
them; a correct (two files: two tasks), a wrong and a hostile submission each get what `coursegen grade --assignment` gives
locally for the same files with the gradebook's seed. The fast tests: --workers with --scheduler is
refused, an unreachable scheduler stops the command with a located error (no traceback), and the
cluster place turns a worker's refusal, a task killing its worker and a reply into the service's
messages."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import dask
import psutil
import pytest
from click.testing import CliRunner

from coursegen.cli import main
from tests.service.running import REPO, assert_graded_as_the_command, issue_tokens, start_service, wait_graded

httpx = pytest.importorskip("httpx")

ASSIGNMENT = "position-sinusoidal"
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
# short limits so that the hostile file ends quickly; the same for the workers and `coursegen grade`
LIMITS = {"COURSEGEN_SANDBOX_LIMITS": "call_seconds=2,import_seconds=5,total_seconds=10"}
CORRECT = (FIXTURES / "correct" / "positions.py").read_text(encoding="utf-8")
SUBMISSIONS = {
    "correct": [
        ("positions.py", CORRECT.encode()),
        ("attention.py", (FIXTURES / "correct" / "attention.py").read_bytes()),
    ],
    "wrong": [("positions.py", (FIXTURES / "missing_function" / "positions.py").read_bytes())],
    "hostile": [
        (
            "positions.py",
            (
                "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept Exception:\n    pass\n"
                "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n    while True:\n        pass\n"
            ).encode(),
        )
    ],
}


def _dask(*args: str, env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # the command's own clean shutdown
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.mark.slow
def test_the_service_on_a_dask_cluster_grades_as_coursegen_grade_does(tmp_path):
    env = {**os.environ, **LIMITS}
    address_file = tmp_path / "scheduler.json"
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    started = [
        _dask(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(address_file),
            env=env,
            cwd=tmp_path,
        )  # fmt: skip
    ]
    service = None
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() or not address_file.read_text().strip():
            assert time.monotonic() < deadline and started[0].poll() is None, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        started.append(
            _dask(
                "worker",
                address,
                "--nworkers",
                "1",
                "--nthreads",
                "2",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
                env=env,
                cwd=tmp_path,
            )  # fmt: skip
        )
        gradebook = tmp_path / "gradebook.sqlite"
        tokens = issue_tokens(gradebook, list(SUBMISSIONS), tmp_path)
        service = start_service(gradebook, "--scheduler", address, env=LIMITS, ready_seconds=120)
        assert "on the Dask cluster at " + address in service.log.read_text()
        with httpx.Client(timeout=60) as client:
            ids = {}
            for student, files in SUBMISSIONS.items():
                parts = [("file", (name, data, "text/x-python")) for name, data in files]
                sent = client.post(
                    f"{service.url}/api/v1/submissions",
                    headers={"Authorization": f"Bearer {tokens[student]}"},
                    data={"assignment": ASSIGNMENT},
                    files=parts,
                )
                assert sent.status_code == 202, sent.text
                ids[student] = sent.json()["id"]
            graded = {s: wait_graded(client, service.url, tokens[s], ids[s], seconds=90) for s in SUBMISSIONS}
            # graded on the cluster: the service started no grading process of its own
            assert psutil.Process(service.process.pid).children(recursive=True) == []
            metrics = client.get(
                f"{service.url}/metrics", headers={"Authorization": f"Bearer {tokens['instructor']}"}
            ).text
        assert 'status="done"' in metrics, metrics
    finally:
        if service is not None:
            service.stop()
        for process in reversed(started):
            _stop(process)
    # every process started here (scheduler, nanny, worker, its sandboxes, the service) has ended
    leftover = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    _, alive = psutil.wait_procs(leftover, timeout=30)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive
    # the oracle: the same files graded on this machine by `coursegen grade --assignment`
    batch = tmp_path / "batch"
    for student, files in SUBMISSIONS.items():
        (batch / student).mkdir(parents=True)
        for name, data in files:
            (batch / student / name).write_bytes(data)
    assert_graded_as_the_command(graded, batch, assignment=ASSIGNMENT, gradebook=gradebook, env=env, timeout=300)
    assert graded["correct"]["score"] == graded["correct"]["max_score"] > 0  # the comparison can fail
    assert 0 < graded["wrong"]["score"] < graded["correct"]["score"]  # it lacks a function: partial credit
    assert graded["hostile"]["score"] == 0
    uids = [row[0] for row in sqlite3.connect(gradebook).execute("SELECT uid FROM runs")]
    assert sorted(uids) == sorted(f"service:{r['id']}" for r in graded.values())  # each recorded once


def test_workers_and_scheduler_together_are_refused(tmp_path):
    result = CliRunner().invoke(
        main,
        ["service", "start", "--gradebook", str(tmp_path / "g.sqlite"), "--workers", "2", "--scheduler",
         "tcp://127.0.0.1:9", "--root", str(REPO)],
    )  # fmt: skip
    assert result.exit_code == 2 and "not both" in result.stderr
    assert not (tmp_path / "g.sqlite").exists()


def test_an_unreachable_scheduler_stops_the_service_naming_it(tmp_path):
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = CliRunner().invoke(
            main,
            ["service", "start", "--gradebook", str(tmp_path / "g.sqlite"), "--scheduler", "tcp://127.0.0.1:9",
             "--root", str(REPO)],
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "coursegen service start: error: --scheduler tcp://127.0.0.1:9: cannot reach the Dask scheduler" in (
        result.stderr
    )
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    assert not (tmp_path / "g.sqlite").exists()  # nothing written before the cluster answered


# ---- the cluster place alone: a fake client, the replies a worker sends ----------------------


class _Future:
    def __init__(self, key: str, args: tuple):
        self.key, self.args, self.status = key, args, "pending"
        self.outcome: object = None
        self.callbacks: list = []

    def add_done_callback(self, callback) -> None:
        self.callbacks.append(callback)

    def finish(self, outcome: object) -> None:
        self.outcome, self.status = outcome, "error" if isinstance(outcome, BaseException) else "finished"
        for callback in self.callbacks:
            callback(self)

    def result(self):
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


class _Client:
    def __init__(self):
        self.submitted: list[_Future] = []

    def submit(self, function, *args, key: str, pure: bool, retries: int) -> _Future:
        assert function.__name__ == "grade_chunk" and not pure and retries == 0
        self.submitted.append(_Future(key, args))
        return self.submitted[-1]

    def run_on_scheduler(self, function) -> int:
        return 3  # distributed.scheduler.allowed-failures


def _place(monkeypatch):
    from types import SimpleNamespace

    from coursegen.service import on_cluster

    monkeypatch.setattr(on_cluster, "connect", lambda address: _Client())
    place = on_cluster.ClusterSlots("tcp://127.0.0.1:9", "hash-of-the-course")
    run = SimpleNamespace(lang="en", spec=lambda: {"root": "/course", "seed": 7, "lang": "en", "hide": []})
    submission = SimpleNamespace(code="x = 1\n", path=Path("/up/s1/positions.py"), exercises={"sinusoidal"}, fatal=None)
    return place, run, submission


def _messages(place) -> list[tuple]:
    """The messages waiting, each `settled` one settled as the feeding thread does."""
    got = []
    while not place.messages.empty():
        message = place.messages.get_nowait()
        if message[0] == "settled":
            place.settle(message[1])
        else:
            got.append(message)
    return got


def test_a_worker_reply_becomes_the_files_outcomes_and_a_refusal_fails_it(monkeypatch):
    place, run, submission = _place(monkeypatch)
    place.submit((None, "s1", 0), run, 0, submission)
    place.submit((None, "s2", 0), run, 0, submission)
    first, second = place.client.submitted
    spec, [item] = first.args
    assert spec["checks_hash"] == "hash-of-the-course" and spec["batch"] == place.batch and spec["seed"] == 7
    assert item == {"key": 0, "code": "x = 1\n", "filename": "positions.py", "exercises": ["sinusoidal"], "fatal": None}
    outcome = {
        "name": "test_shape", "exercise": "sinusoidal", "score": 1.0, "max_score": 2.0, "status": "failed",
        "output": "wrong shape", "hidden": False, "mistakes": [], "problem": "",
    }  # fmt: skip
    first.finish(json.dumps({"results": [{"key": 0, "outcomes": [outcome]}]}))
    second.finish(json.dumps({"error": "Dask worker tcp://w refuses the batch: the checks ... hash abc"}))
    done, failed = _messages(place)
    assert done[0] == "done" and done[1] == (None, "s1", 0) and done[2][0]["output"] == "wrong shape"
    assert failed == ("failed", (None, "s2", 0), "Dask worker tcp://w refuses the batch: the checks ... hash abc")


def test_a_file_killing_its_worker_runs_once_more_then_is_graded_zero_with_the_reason(monkeypatch):
    from distributed.scheduler import KilledWorker

    place, run, submission = _place(monkeypatch)
    place.submit((None, "s1", 0), run, 0, submission)
    place.client.submitted[0].finish(KilledWorker("k", None, 3))
    assert _messages(place) == [] and len(place.client.submitted) == 2  # perhaps innocent: once more
    assert place.client.submitted[1].args == place.client.submitted[0].args
    place.client.submitted[1].finish(KilledWorker("k", None, 3))
    assert _messages(place) == [] and len(place.client.submitted) == 3
    [fatal] = place.client.submitted[2].args[1]
    assert fatal["code"] is None and "died 4 time(s)" in fatal["fatal"]  # never run again: a fatal job
    place.client.submitted[2].finish(json.dumps({"results": [{"key": 0, "outcomes": []}]}))
    assert _messages(place) == [("done", (None, "s1", 0), [])]


def test_a_reply_that_is_not_json_fails_the_file(monkeypatch):
    place, run, submission = _place(monkeypatch)
    place.submit((None, "s1", 0), run, 0, submission)
    place.client.submitted[0].finish(b"\x80pickled")
    [(kind, key, reason)] = _messages(place)
    assert (kind, key) == ("failed", (None, "s1", 0)) and "expected a JSON string" in reason


def test_a_task_the_scheduler_lost_is_reported_lost_not_failed(monkeypatch):
    place, run, submission = _place(monkeypatch)
    place.submit((None, "s1", 0), run, 0, submission)
    future = place.client.submitted[0]
    future.status = "cancelled"
    for callback in future.callbacks:
        callback(future)
    assert _messages(place) == [("lost", (None, "s1", 0), "the Dask scheduler lost its task")]


def test_on_a_cluster_the_service_grades_one_submission_per_thread_and_a_refusal_fails_it(tmp_path):
    """The feeding thread's steps with a cluster of two threads: two of three queued submissions
    handed out, one refused by its worker (failed with the worker's reason), the third then taken;
    one lost by the scheduler is queued again and taken again."""
    import queue

    from coursegen.assignments import read_assignments
    from coursegen.service.grading import Graders
    from grader.course import Course
    from grader.reporting.assignments import check_points, resolve
    from grader.reporting.gradebook import Gradebook

    class Cluster:
        messages: queue.Queue = queue.Queue()
        sent: list = []

        def threads(self) -> int:
            return 2

        def submit(self, key, run, index, submission) -> None:
            assert run.lang == "zh" and submission.code == CORRECT
            self.sent.append(key)

    course = Course.load(REPO)
    [assignment] = [a for a in read_assignments(REPO) if a.id == ASSIGNMENT]
    uploads, cluster = tmp_path / "uploads", Cluster()
    Gradebook(tmp_path / "gb.sqlite").close()  # created as the command creates it
    graders = Graders(
        gradebook=tmp_path / "gb.sqlite",
        course=course,
        definitions={ASSIGNMENT: resolve(assignment, check_points(course.checks_dir))},
        seed=1,
        checks_hash="h",
        uploads=uploads,
        cluster=cluster,  # type: ignore[arg-type]
    )
    for n in range(3):
        (uploads / f"s{n}").mkdir(parents=True)
        (uploads / f"s{n}" / "positions.py").write_text(CORRECT, encoding="utf-8")
        graders.store.enqueue(f"s{n}", f"student{n}", ASSIGNMENT, ["positions.py"], "zh", "2026-12-03T12:00:00+00:00")
    with Gradebook(tmp_path / "gb.sqlite") as book:
        graders._claim_for_idle(book)
        assert cluster.sent == [(None, "s0", 0), (None, "s1", 0)]
        assert graders.store.get("s2")["status"] == "queued"
        graders._receive(book, "failed", (None, "s0", 0), "Dask worker tcp://w refuses the batch: hash abc")
        graders._claim_for_idle(book)
        assert cluster.sent == [(None, "s0", 0), (None, "s1", 0), (None, "s2", 0)]
        graders._receive(book, "lost", (None, "s1", 0), "the Dask scheduler lost its task")
        assert graders.store.get("s1")["status"] == "queued"  # not the student's fault: graded again
        graders._claim_for_idle(book)
    assert cluster.sent[3:] == [(None, "s1", 0)]
    row = graders.store.get("s0")
    assert (row["status"], row["reason"]) == ("failed", "Dask worker tcp://w refuses the batch: hash abc")
    assert graders.store.get("s1")["status"] == graders.store.get("s2")["status"] == "grading"
