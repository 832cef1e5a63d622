"""Grade return: the Canvas and Moodle import CSVs and the plain CSV, through the real command.

The gradebooks here hold runs graded without an assignment (as every gradebook did before
assignments existed): `--title` names the LMS column and each student is out of what they
handed in. Exports by assignment are in tests/grader/test_assignment_*.py."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from grader.reporting.gradebook import Gradebook
from grader.reporting.results import CheckResult, SubmissionResult
from tests.cli import Ran, run_cli

REPO = Path(__file__).resolve().parents[2]
NASTY = '=HYPERLINK("http://evil","x")'


def _result(student: str, submission: str, checks: list[tuple[str, float, float]]) -> SubmissionResult:
    tests = [
        CheckResult(f"test_{exercise}_{i}", exercise, score, top, "passed" if score == top else "failed")
        for i, (exercise, score, top) in enumerate(checks)
    ]
    return SubmissionResult(
        student=student,
        submission=submission,
        sha256="e" * 64,
        score=sum(t.score for t in tests),
        max_score=sum(t.max_score for t in tests),
        tests=tests,
    )


@pytest.fixture
def book(tmp_path) -> Path:
    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path) as gradebook:
        # ana: rope 3/4 (rope.py graded twice: the latest counts), alibi 2/2
        gradebook.record(
            _result("ana", "rope.py", [("apply_rope", 0, 3), ("apply_rope", 0, 1)]), checks_hash="h", seed=1
        )
        gradebook.record(
            _result("ana", "rope.py", [("apply_rope", 3, 3), ("apply_rope", 0, 1)]), checks_hash="h", seed=1
        )
        gradebook.record(
            _result("ana", "alibi.py", [("alibi_slopes", 1, 1), ("alibi_bias", 1, 1)]), checks_hash="h", seed=1
        )
        # ben handed in rope twice (a .py and a notebook): the better one counts, once
        gradebook.record(
            _result("ben", "rope.py", [("apply_rope", 1, 3), ("apply_rope", 0, 1)]), checks_hash="h", seed=1
        )
        gradebook.record(
            _result("ben", "rope.ipynb", [("apply_rope", 3, 3), ("apply_rope", 1, 1)]), checks_hash="h", seed=1
        )
        gradebook.record(
            _result(NASTY, "rope.py", [("apply_rope", 0, 3), ("apply_rope", 0, 1)]), checks_hash="h", seed=1
        )
    return path


@pytest.fixture
def roster(tmp_path) -> Path:
    path = tmp_path / "lms.csv"
    path.write_text(
        "student,lms_id,name,section,sis_user_id,sis_login_id\n"
        'ana,1001,"Li, Ana",A,S-1,ana@uni\n'
        "ben,1002,Ben,B,S-2,ben@uni\n"
        f'"{NASTY.replace(chr(34), chr(34) * 2)}",-1003,@Evil,+B,,\n'
        "dora,1004,Dora,A,S-4,dora@uni\n",
        encoding="utf-8",
    )
    return path


def export(*args: str) -> Ran:
    return run_cli("gradebook", "export", *args, cwd=REPO)


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_canvas_csv_has_canvas_columns_and_the_assignment_named_with_its_id(book, roster):
    done = export(
        "--format",
        "canvas",
        "--gradebook",
        str(book),
        "--roster",
        str(roster),
        "--title",
        "Positions",
        "--assignment-id",
        "42",
    )
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Positions (42)"],
        ["Li, Ana", "1001", "S-1", "ana@uni", "A", "5"],
        ["Ben", "1002", "S-2", "ben@uni", "B", "4"],
        ["'@Evil", "-1003", "", "", "'+B", "0"],  # a plain number is data, not a formula
        ["Dora", "1004", "S-4", "dora@uni", "A", ""],  # no submission: no change
    ]


def test_the_plain_csv_has_one_column_per_exercise_of_the_course_given_by_root(book, tmp_path):
    # run from a folder that is not the course: the exercise columns come from --root's registry
    from tests.first_course import EXERCISES

    done = run_cli("gradebook", "export", "--format", "csv", "--gradebook", book, "--root", REPO, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header = rows(done.stdout)[0]
    columns = header[header.index("percent") + 1 :]  # the graded exercises, in the registry's order
    assert columns and columns == [e.name for e in EXERCISES if e.name in columns]


def test_lms_files_use_crlf_line_ends_as_rfc_4180_says(book, roster, tmp_path):
    out = tmp_path / "canvas.csv"
    done = export(
        "--format", "canvas", "--gradebook", str(book), "--roster", str(roster), "--title", "A", "-o", str(out)
    )
    assert done.returncode == 0 and done.stdout == ""
    data = out.read_bytes()
    assert data.count(b"\r\n") == 5 and data.count(b"\n") == 5


def test_moodle_csv_has_the_user_field_column_and_the_grade_item(book, roster):
    done = export(
        "--format",
        "moodle",
        "--gradebook",
        str(book),
        "--roster",
        str(roster),
        "--title",
        "Positions",
        "--moodle-id",
        "email",
        "--out-of",
        "10",
    )
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        ["Email address", "Positions"],
        ["1001", "8.3333"],
        ["1002", "10"],
        ["-1003", "0"],  # a plain number is data, not a formula
        ["1004", ""],
    ]


def test_plain_csv_has_one_column_per_exercise_and_safe_cells(book, roster):
    done = export("--format", "csv", "--gradebook", str(book))
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert table[0] == ["student", "score", "max_score", "percent", "apply_rope", "alibi_slopes", "alibi_bias"]
    by_student = {row[0]: dict(zip(table[0], row)) for row in table[1:]}
    assert by_student["ana"]["apply_rope"] == "3" and by_student["ana"]["alibi_slopes"] == "1"
    assert by_student["ana"]["score"] == "5" and by_student["ana"]["max_score"] == "6"
    assert by_student["ben"]["apply_rope"] == "4" and by_student["ben"]["alibi_bias"] == ""
    assert "'" + NASTY in by_student
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in table for cell in row)


def test_a_graded_student_missing_from_the_roster_is_an_error_naming_them(book, tmp_path):
    partial = tmp_path / "partial.csv"
    partial.write_text("student,lms_id\nana,1001\n", encoding="utf-8")
    done = export(
        "--format",
        "canvas",
        "--gradebook",
        str(book),
        "--roster",
        str(partial),
        "--title",
        "A",
        "-o",
        str(tmp_path / "out.csv"),
    )
    assert done.returncode == 2 and "2 graded student(s) are not in the roster: " in done.stderr
    assert "'ben'" in done.stderr
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    "content, where",
    [
        ("id,lms\nana,1\n", "lms.csv:1:1: expected the header 'student,lms_id'"),
        ("student,lms_id,email\nana,1,a\n", "lms.csv:1:3: expected the header"),
        ("student,lms_id\nana,1\nben\n", "lms.csv:3:1: expected 2 fields"),
        ("student,lms_id\nana,\n", "lms.csv:2:2: empty 'lms_id'"),
        ("student,lms_id\nana,1\nana,2\n", "lms.csv:3:1: student 'ana' is listed twice"),
    ],
)
def test_a_bad_roster_is_an_error_naming_line_and_column(book, tmp_path, content, where):
    path = tmp_path / "lms.csv"
    path.write_text(content, encoding="utf-8")
    done = export("--format", "moodle", "--gradebook", str(book), "--roster", str(path), "--title", "A")
    assert done.returncode == 2 and where in done.stderr


def test_lms_formats_need_a_roster_and_an_assignment(book, roster):
    assert "needs --roster" in export("--format", "canvas", "--gradebook", str(book), "--assignment", "A").stderr
    done = export("--format", "moodle", "--gradebook", str(book), "--roster", str(roster))
    assert done.returncode == 2 and "needs --assignment" in done.stderr


def test_the_legacy_csv_flag_still_works_and_one_of_the_two_is_required(book):
    assert export("--csv", "--gradebook", str(book)).stdout.startswith('"student","submission","score"')
    assert export("--gradebook", str(book)).returncode == 2
