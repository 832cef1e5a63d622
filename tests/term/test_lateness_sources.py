"""Issue 34, item 3: where a submission's time comes from (the grading roster's `submitted_at`
column, an LMS download's metadata, Canvas's LATE mark), and the gradebook's lateness table
(schema 4): kept apart from the raw score, old gradebooks still read, merged with the runs."""

from __future__ import annotations

import csv
import datetime
import sqlite3

import pytest

from grader.reporting.gradebook import Gradebook, merge
from grader.reporting.lateness import LatePolicyError, late_by_text, read_submitted_at, share_of, times_of
from grader.reporting.lms_export import export, late_terms
from tests.cli import run_cli

from .course import make_term_course

UTC = datetime.timezone.utc


def test_the_roster_column_reads_times_with_their_offset(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "student,submission,submitted_at\nana,ana,2026-03-02T23:10:00+08:00\nben,ben,\ncleo,cleo,2026-03-02T15:10:00Z\n",
        encoding="utf-8",
    )
    times = read_submitted_at(roster)
    assert times == {
        "ana": datetime.datetime(2026, 3, 2, 15, 10, tzinfo=UTC),
        "cleo": datetime.datetime(2026, 3, 2, 15, 10, tzinfo=UTC),
    }
    assert times["ana"].utcoffset() == datetime.timedelta(hours=8)  # kept as written


@pytest.mark.parametrize("value", ["2026-03-02T23:10:00", "yesterday", "2026-13-02T10:00:00+08:00"])
def test_a_time_without_offset_or_not_a_time_is_a_located_error(tmp_path, value):
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student,submission,submitted_at\nana,ana,2026-03-02T23:10:00+08:00\nben,ben,{value}\n")
    with pytest.raises(LatePolicyError) as error:
        read_submitted_at(roster)
    assert str(error.value).startswith(f"{roster}:3:3: submitted_at {value!r}: expected an ISO 8601 date-time with")


def test_a_roster_without_the_column_gives_no_times(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,submission\nana,ana.py\n")
    assert read_submitted_at(roster) == {}


def test_the_roster_comes_first_then_the_lms_time_then_its_late_mark():
    roster_at = datetime.datetime(2026, 3, 1, tzinfo=UTC)
    lms_at = datetime.datetime(2026, 3, 5, tzinfo=UTC)
    times = times_of(
        ["ana", "ben", "cleo", "dana"],
        roster={"ana": roster_at},
        lms_times={"ana": lms_at, "ben": lms_at},
        late_marked={"cleo"},
        lms="canvas",
    )
    assert [(t.at, t.late_marked, t.source) for t in times.values()] == [
        (roster_at, False, "roster"),
        (lms_at, False, "canvas"),
        (None, True, "canvas"),
        (None, False, ""),
    ]


def test_late_by_in_words_in_both_languages():
    assert late_by_text(93660.0) == "1 d 2 h 1 min" and late_by_text(93660.0, "zh") == "1 天 2 小时 1 分钟"
    assert late_by_text(None) == "on time" and late_by_text(None, "zh") == "按时"
    assert late_by_text(None, late_marked=True) == "late (marked by the LMS)"
    assert late_by_text(30.0) == "1 min"  # part of a minute shows as a minute


def test_the_service_share_and_a_changed_raw_score():
    assert (
        share_of(7.0, 0.25) == (1.75, 5.25) and share_of(7.0, None) == (0.0, 7.0) and share_of(2.0, 1.0) == (2.0, 0.0)
    )
    row = {"raw": 10.0, "penalty": 2.0}
    assert late_terms(10.0, row) == {"raw": 10.0, "penalty": 2.0, "final": 8.0}
    assert late_terms(5.0, row) == {"raw": 5.0, "penalty": 1.0, "final": 4.0}  # the same 20 % of a re-graded score
    assert late_terms(5.0, None) == {"raw": 5.0, "penalty": 0.0, "final": 5.0}


def _late(book: Gradebook, student: str, penalty: float, recorded_at: str) -> None:
    book.record_lateness(
        student, "hw1", "d" * 64, submitted_at="2026-03-03T18:00:00+00:00", late_marked=False,
        late_by=93660.0, raw=7.0, penalty=penalty, final=7.0 - penalty, source="gradescope", recorded_at=recorded_at,
    )  # fmt: skip


def test_the_gradebook_keeps_the_latest_lateness_and_refuses_changes(tmp_path):
    path = tmp_path / "gb.sqlite"
    with Gradebook(path) as book:
        _late(book, "ana", 1.4, "2026-03-04T00:00:00+00:00")
        _late(book, "ana", 1.4, "2026-03-04T00:00:01+00:00")  # a resumed batch: the same terms, no new row
        _late(book, "ana", 2.1, "2026-03-05T00:00:00+00:00")
    with Gradebook(path, create=False, read_only=True) as book:
        latest = book.lateness("hw1", "d" * 64)
        assert len(book.lateness_rows()) == 2
    assert (latest["ana"]["penalty"], latest["ana"]["final"], latest["ana"]["source"]) == (2.1, 4.9, "gradescope")
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE lateness SET penalty = 0")
    db.close()
    other = tmp_path / "other.sqlite"
    Gradebook(other).close()
    merge(path, other, tmp_path / "merged.sqlite")
    with Gradebook(tmp_path / "merged.sqlite", create=False, read_only=True) as book:
        assert [r["penalty"] for r in book.lateness_rows()] == [1.4, 2.1]


def test_a_version_3_gradebook_reads_without_lateness_and_migrates_to_4(tmp_path):
    path = tmp_path / "v3.sqlite"
    with Gradebook(path) as book:  # written now, then made a version-3 file as the grader wrote it before
        pass
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TRIGGER lateness_append_only_update; DROP TRIGGER lateness_append_only_delete; DROP INDEX lateness_key;"
        "DROP TABLE lateness;"
        "UPDATE meta SET value = '3' WHERE key = 'schema_version'; PRAGMA user_version = 3;"
    )
    db.close()
    with Gradebook(path, create=False, read_only=True) as book:
        assert book.lateness() == {} and book.lateness_rows() == []
    with Gradebook(path) as book:
        _late(book, "ana", 1.4, "2026-03-04T00:00:00+00:00")
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (4,)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
    db.close()


def test_the_csv_export_without_lateness_keeps_its_columns():
    run = {
        "id": 1, "student": "ana", "submission": "a.py", "assignment": "", "definition": "",
        "tests": [{"exercise": "trapezoid", "score": 3.0, "max_score": 4.0}],
    }  # fmt: skip
    text = export([run], "csv", exercises=["trapezoid"])
    assert next(csv.reader(text.splitlines())) == ["student", "score", "max_score", "percent", "trapezoid"]


def test_grade_refuses_a_bad_submitted_at_before_grading_anything(tmp_path):
    root = make_term_course(tmp_path / "course")
    (tmp_path / "batch" / "ana").mkdir(parents=True)
    (tmp_path / "batch" / "ana" / "quadrature.py").write_text("def trapezoid(f, a, b, n):\n    return 0.0\n")
    roster = tmp_path / "roster.csv"
    roster.write_text("student,submission,submitted_at\nana,ana,2026-03-02 23:10\n", encoding="utf-8")
    ran = run_cli(
        "grade", tmp_path / "batch", "--assignment", "hw1", "--roster", roster, "--root", root,
        "--gradebook", tmp_path / "gb.sqlite", cwd=tmp_path,
    )  # fmt: skip
    assert ran.exit_code == 2, ran
    assert f"{roster}:2:3: submitted_at '2026-03-02 23:10': expected an ISO 8601 date-time with" in ran.stderr
    assert not (tmp_path / "gb.sqlite").exists()  # nothing graded


def test_the_text_report_says_raw_late_by_penalty_and_final_in_the_students_language():
    from grader.reporting.reports import text
    from grader.reporting.results import SubmissionResult

    late = {"raw": 7.0, "late_by_seconds": 93660.0, "penalty": 1.4, "final": 5.6, "late_marked": False}
    result = SubmissionResult("ana", "hw1", "0" * 64, 7.0, 7.0, lang="zh", lateness=late)
    assert "原始得分 7；迟交时长 1 天 2 小时 1 分钟；迟交扣分 1.4；最终得分 5.6" in text(result)
    result.lang = "en"
    assert "raw score 7; late by 1 d 2 h 1 min; late penalty 1.4; final score 5.6" in text(result)
