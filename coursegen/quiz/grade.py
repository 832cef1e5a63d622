"""Grade quiz responses against each student's own variant.

RESPONSES.csv (UTF-8, header row required, one row per answered question):

    student,quiz,question,response
    alice,dot-product,batch-shape,"[3, 4]"
    alice,dot-product,result-kind,B
    alice,dot-product,properties,"A, C"

`quiz` is the quiz id (the lesson's `quiz:`); `question` the question id. A response is:
single / true_false -> the letter of the option as shown in that student's variant (A, B, ...;
true_false also accepts true/false, t/f, 对/错); multiple -> letters separated by commas or
spaces ("A, C"); numeric -> a number; shape -> "[4, 128, 32000]" (parentheses, "x" or bare
commas also work); short -> text; matching -> for each left item in order, the letter of its
match ("B, A, C"). Unanswered questions score 0. Scores: all or nothing, except matching
(the fraction of pairs right).

Output scores.csv: `student,quiz,score,max_score,percent`, one row per (student, quiz), sorted.
`--details` adds one row per question. `--gradebook FILE` appends the run to the SQLite
gradebook (tables quiz_runs and quiz_results; append-only).
"""

from __future__ import annotations

import csv
import hashlib
import io
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location

from .kinds import kind_of
from .kinds.base import Outcome as Outcome
from .kinds.numeric import parse_number as parse_number
from .kinds.shape import parse_shape as parse_shape
from .load import LoadedQuiz
from .variants import make_variant

COLUMNS = ("student", "quiz", "question", "response")


def check(item: dict, response: str) -> Outcome:
    """Score one response to one concrete item and pick the feedback to show (its kind reads it once)."""
    kind = kind_of(item["type"])
    return kind.grade(item, kind.read(item, response))


@dataclass(frozen=True)
class QuestionResult:
    student: str
    quiz: str
    question: str
    response: str
    points: float
    max_points: int


def read_responses(path: str | Path) -> list[dict]:
    """The rows of RESPONSES.csv; a bad header or an empty field is an error naming the line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ContentError(Location(str(path)), "file not found") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ContentError(
            Location(str(path), 1, 1),
            f"missing column(s) {', '.join(missing)}; expected the header: {','.join(COLUMNS)}",
        )
    rows, errors = [], []
    for row in reader:
        line = reader.line_num
        for column in ("student", "quiz", "question"):
            if not (row.get(column) or "").strip():
                errors.append(ContentError(Location(str(path), line, 1), f"empty '{column}'"))
        rows.append({**{c: (row.get(c) or "").strip() for c in COLUMNS}, "line": line})
    if errors:
        raise ContentErrors(errors)
    return rows


def grade_responses(
    rows: list[dict], quizzes: dict[str, LoadedQuiz], source: str = "responses"
) -> list[QuestionResult]:
    """Grade every (student, quiz) found in `rows` against that student's variant."""
    errors = []
    for row in rows:
        if row["quiz"] not in quizzes:
            errors.append(
                ContentError(
                    Location(source, row["line"], 1),
                    f"unknown quiz '{row['quiz']}'; known: {', '.join(sorted(quizzes))}",
                )
            )
    if errors:
        raise ContentErrors(errors)
    answers: dict[tuple[str, str], dict[str, str]] = {}
    for row in rows:
        answers.setdefault((row["student"], row["quiz"]), {})[row["question"]] = row["response"]
    results: list[QuestionResult] = []
    for (student, quiz_id), responses in sorted(answers.items()):
        variant = make_variant(quizzes[quiz_id], student)
        known = {item["id"] for item in variant["questions"]}
        for question_id in responses:
            if question_id not in known:
                line = next(
                    r["line"]
                    for r in rows
                    if (r["student"], r["quiz"], r["question"]) == (student, quiz_id, question_id)
                )
                errors.append(
                    ContentError(Location(source, line, 1), f"quiz '{quiz_id}' has no question '{question_id}'")
                )
        for item in variant["questions"]:
            response = responses.get(item["id"], "")
            score = check(item, response).score if response else 0.0
            results.append(
                QuestionResult(student, quiz_id, item["id"], response, round(score * item["points"], 4), item["points"])
            )
    if errors:
        raise ContentErrors(errors)
    return results


def summarise(results: list[QuestionResult]) -> list[dict]:
    totals: dict[tuple[str, str], list[float]] = {}
    for r in results:
        total = totals.setdefault((r.student, r.quiz), [0.0, 0])
        total[0] += r.points
        total[1] += r.max_points
    return [
        {
            "student": s,
            "quiz": q,
            "score": _num(v[0]),
            "max_score": _num(v[1]),
            "percent": _num(round(100 * v[0] / v[1], 2) if v[1] else 0),
        }
        for (s, q), v in sorted(totals.items())
    ]


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def scores_csv(summary: list[dict]) -> str:
    """scores.csv; ids and answers come from the responses file, so every cell is escaped for
    formulas and quoted (grader.textsafe.csv_text)."""
    from grader.textsafe import csv_text

    columns = ["student", "quiz", "score", "max_score", "percent"]
    return csv_text([columns, *([row.get(c, "") for c in columns] for row in summary)])


def details_csv(results: list[QuestionResult]) -> str:
    from grader.textsafe import csv_text

    header = ["student", "quiz", "question", "response", "points", "max_points"]
    return csv_text(
        [header, *([r.student, r.quiz, r.question, r.response, _num(r.points), r.max_points] for r in results)]
    )


def append_to_gradebook(path: str | Path, results: list[QuestionResult], responses_sha256: str) -> int:
    """Append one run to the SQLite gradebook (WAL); returns the run id. Nothing is ever updated."""
    connection = sqlite3.connect(str(path))
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript("""
            CREATE TABLE IF NOT EXISTS quiz_runs (
                id INTEGER PRIMARY KEY, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
                responses_sha256 TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS quiz_results (
                run_id INTEGER NOT NULL REFERENCES quiz_runs(id), student TEXT NOT NULL, quiz TEXT NOT NULL,
                question TEXT NOT NULL, response TEXT NOT NULL, points REAL NOT NULL, max_points REAL NOT NULL);
        """)
        with connection:
            run = connection.execute(
                "INSERT INTO quiz_runs (responses_sha256) VALUES (?)", (responses_sha256,)
            ).lastrowid
            assert run is not None  # an INSERT sets it
            connection.executemany(
                "INSERT INTO quiz_results VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(run, r.student, r.quiz, r.question, r.response, r.points, r.max_points) for r in results],
            )
        return run
    finally:
        connection.close()


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
