"""The grading service's door, without a server: tokens (hashed, constant-time, revocable), upload
name rules, the hourly quota counted in the gradebook, the failed-login limiter, and gradebooks
that hold the service's tables read as before."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from grader.reporting.gradebook import Gradebook
from coursegen.service.door import FailureLimiter, Limits, Refusal, check_files, check_name, quota_retry_after
from coursegen.service.store import ServiceStore
from coursegen.service.tokens import authenticate, issue


@pytest.fixture
def store(tmp_path):
    Gradebook(tmp_path / "gb.sqlite").close()
    return ServiceStore(tmp_path / "gb.sqlite")


def test_a_token_is_stored_only_as_the_hash_of_its_secret(store, tmp_path):
    token = issue(store, "alice")
    secret = token.split(".")[2]
    dump = "\n".join(sqlite3.connect(tmp_path / "gb.sqlite").iterdump())
    assert secret not in dump and token not in dump
    assert authenticate(store, token).student == "alice"


@pytest.mark.parametrize("mangle", [lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), lambda t: t + "x", str.upper])
def test_a_changed_token_is_refused(store, mangle):
    token = issue(store, "alice")
    assert authenticate(store, mangle(token)) is None


@pytest.mark.parametrize("token", [None, "", "cg1", "cg1..", "Bearer x", "cg1.nosuch.secret", "x" * 10_000])
def test_a_malformed_or_unknown_token_is_refused(store, token):
    issue(store, "alice")
    assert authenticate(store, token) is None


def test_a_revoked_token_stops_working_and_the_others_do_not(store):
    alice, bob = issue(store, "alice"), issue(store, "bob")
    assert store.revoke(student="alice") == 1
    assert authenticate(store, alice) is None
    assert authenticate(store, bob).student == "bob"


def test_the_instructor_token_says_so(store):
    caller = authenticate(store, issue(store, "instructor", "instructor"))
    assert caller.instructor and not authenticate(store, issue(store, "alice")).instructor


@pytest.mark.parametrize("name", ["rope.py", "smith_123_rope-1.py", "作业 1.ipynb", "Positions.PY"])
def test_plain_file_names_pass(name):
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "../rope.py",
        "a/rope.py",
        "a\\rope.py",
        "/etc/passwd.py",
        ".hidden.py",
        "-rf.py",
        "rope.txt",
        "",
        "..",
        "ro\x00pe.py",
        "ro\npe.py",
        "x" * 101 + ".py",
        "rope.py ",
    ],
)
def test_a_name_that_is_a_path_or_not_a_submission_is_refused_with_422(name):
    with pytest.raises(Refusal) as refused:
        check_name(name)
    assert refused.value.status == 422 and refused.value.reason


def test_file_count_and_duplicates_are_refused():
    limits = Limits(max_files=2)
    assert check_files(["a.py", "b.py"], limits) == ["a.py", "b.py"]
    for names in ([], ["a.py", "b.py", "c.py"], ["a.py", "A.py"]):
        with pytest.raises(Refusal) as refused:
            check_files(names, limits)
        assert refused.value.status == 422


def test_the_quota_counts_one_student_and_one_assignment_in_the_past_hour(store):
    now = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
    since = (now - timedelta(hours=1)).isoformat()
    old = (now - timedelta(minutes=90)).isoformat()
    store.enqueue("old", "alice", "a1", ["x.py"], "en", old)  # outside the hour
    times = [(now - timedelta(minutes=m)).isoformat() for m in (50, 20)]
    for n, at in enumerate(times):
        assert store.enqueue(f"s{n}", "alice", "a1", ["x.py"], "en", at, quota=2, since=since) is None
    refused = store.enqueue("s3", "alice", "a1", ["x.py"], "en", now.isoformat(), quota=2, since=since)
    assert refused == (2, times[0])
    assert store.get("s3") is None  # nothing written
    assert store.enqueue("b", "bob", "a1", ["x.py"], "en", now.isoformat(), quota=2, since=since) is None
    assert store.enqueue("o", "alice", "a2", ["x.py"], "en", now.isoformat(), quota=2, since=since) is None
    # the oldest of the hour (50 min ago) frees its place in ten minutes
    assert quota_retry_after(*refused, quota=2, now=now) == 601
    assert quota_retry_after(1, times[0], quota=2, now=now) is None


def test_failed_logins_are_limited_per_client_for_a_minute():
    clock = [1000.0]
    limiter = FailureLimiter(3, clock=lambda: clock[0])
    for _ in range(3):
        assert limiter.retry_after("10.0.0.1") is None
        limiter.failed("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") == 61
    assert limiter.retry_after("10.0.0.2") is None
    clock[0] += 60.5
    assert limiter.retry_after("10.0.0.1") is None


def test_claim_takes_the_oldest_queued_once_and_a_restart_requeues_what_was_grading(store):
    for n in range(3):
        store.enqueue(f"s{n}", "alice", "a1", ["x.py"], "en", f"2026-12-03T12:00:0{n}")
    first = store.claim(("en",))
    assert first["id"] == "s0" and first["status"] == "grading" and first["attempts"] == 1
    assert store.claim(("zh",)) is None
    assert store.claim(("en",))["id"] == "s1"
    assert store.requeue_abandoned() == 2
    assert [store.claim(("en",))["id"] for _ in range(3)] == ["s0", "s1", "s2"]
    assert store.claim(("en",)) is None


def test_a_gradebook_with_the_service_tables_is_read_as_before(store, tmp_path):
    store.enqueue("s0", "alice", "a1", ["x.py"], "en", "2026-12-03T12:00:00")
    issue(store, "alice")
    with Gradebook(tmp_path / "gb.sqlite", read_only=True) as book:
        assert book.runs() == []
    with Gradebook(tmp_path / "gb.sqlite") as book:
        assert book.seed() is None


def test_an_older_gradebook_gets_the_service_tables_and_keeps_its_runs(tmp_path):
    from grader.reporting.results import SubmissionResult

    path = tmp_path / "old.sqlite"
    with Gradebook(path) as book:
        book.record(SubmissionResult("alice", "rope.py", "0" * 64, 1.0, 2.0), checks_hash="h", seed=1)
    ServiceStore(path)
    with Gradebook(path, read_only=True) as book:
        assert [r["student"] for r in book.runs()] == ["alice"]


def test_the_service_route_needs_its_url_and_the_guide_gives_it_in_both_languages():
    from types import SimpleNamespace

    from pydantic import ValidationError

    from coursegen.schema import Submission
    from coursegen.student_guide import submit_text

    course = SimpleNamespace(submission=Submission(route="service", url="https://grader.example.edu/"))
    for lang in ("en", "zh"):
        assert "https://grader.example.edu/" in submit_text(course, lang)
    for wrong in ({"route": "service"}, {"route": "service", "url": "grader.example.edu"}, {"url": "https://x/"}):
        with pytest.raises(ValidationError):
            Submission(**wrong)


class _Jobs:
    def __init__(self):
        self.sent = []

    def put(self, job):
        self.sent.append(job)


def test_a_submission_recorded_before_a_crash_is_marked_done_and_not_graded_again(tmp_path):
    """Killed between recording its run and marking its row: the restart finds the run (uid
    service:<id>) and marks the row done with that run's score; nothing is handed to a grader."""
    from coursegen.service.grading import Graders, _Process
    from coursegen.service.store import run_uid
    from grader.reporting.results import SubmissionResult

    gradebook = tmp_path / "gb.sqlite"
    with Gradebook(gradebook) as book:
        book.record(
            SubmissionResult("alice", "service/s0/x.py", "0" * 64, 3.0, 4.0), checks_hash="h", seed=1, uid=run_uid("s0")
        )
    graders = Graders(
        gradebook=gradebook, course=None, definitions={}, seed=1, checks_hash="h", uploads=tmp_path, workers=1
    )
    graders.store.enqueue("s0", "alice", "a1", ["x.py"], "en", "2026-12-03T12:00:00+00:00")
    graders.store.claim(("en",))
    assert graders.store.requeue_abandoned() == 1  # what a restart does first
    jobs = _Jobs()
    graders._processes.append(_Process(0, "en", process=None, jobs=jobs))
    with Gradebook(gradebook) as book:
        graders._claim_for_idle(book)
    row = graders.store.get("s0")
    assert (row["status"], row["score"], row["max_score"]) == ("done", 3.0, 4.0)
    assert jobs.sent == []
    with Gradebook(gradebook) as book:
        assert [r["uid"] for r in book.runs()] == [run_uid("s0")]
