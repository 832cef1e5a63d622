"""grader/reporting/gradebook.py: append-only SQLite runs, resume keys, WAL concurrency, clear errors, merge."""

import csv
import io
import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from grader.reporting.results import CheckResult, SubmissionResult
from grader.reporting.gradebook import Gradebook, GradebookError, merge


def result(student="alice", score=1.0, sha="a" * 64) -> SubmissionResult:
    return SubmissionResult(
        student=student,
        submission=f"{student}/rope.py",
        sha256=sha,
        score=score,
        max_score=2,
        tests=[CheckResult("test_a", "apply_rope", score, 2, "passed" if score else "failed")],
    )


def test_recorded_run_is_found_by_its_full_key(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        book.record(result(), checks_hash="h", seed=5)
        assert book.has_run("alice", "alice/rope.py", "a" * 64, "h", 5)
        assert not book.has_run("alice", "alice/rope.py", "b" * 64, "h", 5)
        assert not book.has_run("alice", "alice/rope.py", "a" * 64, "other", 5)
        assert not book.has_run("alice", "alice/rope.py", "a" * 64, "h", 6)


def test_runs_keep_their_checks(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        book.record(result(), checks_hash="h", seed=5)
        [latest] = book.latest_results()
    assert latest.score == 1 and latest.tests[0].name == "test_a"


def test_every_run_is_kept_and_the_latest_wins(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        book.record(result(score=0), checks_hash="h", seed=5)
        book.record(result(score=2, sha="b" * 64), checks_hash="h", seed=5)
        assert len(book.runs()) == 2
        assert book.latest_results()[0].score == 2


def test_runs_cannot_be_updated_or_deleted(tmp_path):
    path = tmp_path / "g.sqlite"
    with Gradebook(path) as book:
        book.record(result(), checks_hash="h", seed=5)
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE runs SET score = 99")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM checks")
    db.close()


def test_gradebook_uses_wal(tmp_path):
    path = tmp_path / "g.sqlite"
    Gradebook(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_batch_seed_is_stored_once(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        assert book.seed() is None
        assert book.ensure_seed(11) == 11
        assert book.ensure_seed(12) == 11


def test_corrupt_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "g.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(GradebookError, match="not a readable gradebook"):
        Gradebook(path)


def test_locked_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "g.sqlite"
    Gradebook(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with Gradebook(path, busy_timeout=0.2) as book:
            with pytest.raises(GradebookError, match="locked"):
                book.record(result(), checks_hash="h", seed=1)
    except GradebookError as exc:  # opening may already wait on the lock
        assert "locked" in str(exc)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _write_runs(path, student, count):
    with Gradebook(path) as book:
        for i in range(count):
            book.record(result(student=f"{student}-{i}"), checks_hash="h", seed=1)


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "g.sqlite"
    Gradebook(path).close()
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_runs, args=(path, f"w{n}", 25)) for n in range(4)]
    for w in writers:
        w.start()
    for w in writers:
        w.join(60)
    assert [w.exitcode for w in writers] == [0, 0, 0, 0]
    with Gradebook(path) as book:
        runs = book.runs()
    assert len(runs) == 100 and len({r["student"] for r in runs}) == 100
    assert all(len(r["tests"]) == 1 for r in runs)


def test_connections_opening_a_new_gradebook_at_once_never_see_it_half_made(tmp_path):
    # A client killed mid-batch is resumed while a reader polls the same file; shards start together:
    # whoever opens a brand-new file second must wait for its whole schema, not read a file half made.
    # (Threads, each with its own connection: sqlite3 lets go of the GIL, so they race as processes do.)
    errors: list[str] = []

    def open_at(barrier: threading.Barrier, path: Path) -> None:
        barrier.wait()
        try:
            Gradebook(path).close()
        except GradebookError as exc:
            errors.append(str(exc))

    for attempt in range(40):
        path = tmp_path / f"g{attempt}.sqlite"
        barrier = threading.Barrier(4)
        openers = [threading.Thread(target=open_at, args=(barrier, path)) for _ in range(4)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(60)
        with Gradebook(path, create=False, read_only=True) as book:
            assert book.runs() == []
    assert errors == []


def test_merge_holds_every_run_of_both_once(tmp_path):
    a, b, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "all.sqlite"
    for path, student in ((a, "alice"), (b, "bob")):
        with Gradebook(path) as book:
            book.ensure_seed(3)
            book.record(result(student=student), checks_hash="h", seed=3)
    assert merge(a, b, out) == 2
    with Gradebook(out) as book:
        assert sorted(r.student for r in book.latest_results()) == ["alice", "bob"] and book.seed() == 3
    assert merge(out, a, tmp_path / "again.sqlite") == 2  # alice's run is not duplicated


def test_merge_refuses_to_overwrite(tmp_path):
    a = tmp_path / "a.sqlite"
    Gradebook(a).close()
    with pytest.raises(GradebookError, match="already exists"):
        merge(a, a, a)


def test_merge_refuses_different_batch_seeds(tmp_path):
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    for path, seed in ((a, 1), (b, 2)):
        with Gradebook(path) as book:
            book.ensure_seed(seed)
    with pytest.raises(GradebookError, match="different batch seeds"):
        merge(a, b, tmp_path / "out.sqlite")


def test_csv_export_has_one_row_per_submission(tmp_path):
    with Gradebook(tmp_path / "g.sqlite") as book:
        book.record(result(score=0), checks_hash="h", seed=5)
        book.record(result(score=2, sha="b" * 64), checks_hash="h", seed=5)
        book.record(result(student="bob"), checks_hash="h", seed=5)
        rows = list(csv.reader(io.StringIO(book.export_csv())))  # every cell quoted (grader.textsafe.csv_text)
    assert rows[0][:4] == ["student", "submission", "score", "max_score"]
    assert len(rows) == 3 and rows[1][:4] == ["alice", "alice/rope.py", "2", "2"]


def test_a_gradebook_that_also_holds_the_quiz_grades_is_read_but_a_view_in_their_name_is_not(tmp_path):
    from coursegen.quiz.grade import QuestionResult, append_to_gradebook

    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path) as book:
        book.record(result(score=1), checks_hash="h", seed=5)
    answer = QuestionResult(student="alice", quiz="q", question="one", response="2", points=1.0, max_points=1)
    append_to_gradebook(path, [answer], "0" * 64)  # `coursegen quiz grade --gradebook gradebook.sqlite`
    with Gradebook(path, create=False, read_only=True) as book:
        assert [run["student"] for run in book.runs()] == ["alice"]
    tampered = tmp_path / "tampered.sqlite"
    with Gradebook(tampered) as book:
        book.record(result(score=1), checks_hash="h", seed=5)
    with sqlite3.connect(tampered) as db:
        db.execute("CREATE VIEW quiz_runs AS SELECT * FROM runs")
    with pytest.raises(GradebookError, match="view 'quiz_runs'"):
        Gradebook(tampered, create=False, read_only=True)
