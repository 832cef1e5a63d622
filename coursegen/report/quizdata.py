"""Quiz results for the class report, read from the tables `coursegen quiz grade --gradebook`
appends to (quiz_runs, quiz_results; see coursegen/quiz/grade.py).

For every (student, quiz) the results of the latest run that graded that pair count. With the
course at hand, each response is read back against that student's own variant (options are
shuffled per student), so the report can say which option, or which catalogued wrong answer,
students chose; without it only the raw responses are counted.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from coursegen.errors import ContentError
from coursegen.quiz.kinds import kind_of
from coursegen.quiz.kinds.base import OTHER as OTHER

from .stats import QuizStats, quiz_statistics
from grader.errors import CoursegenError

UNANSWERED = "(no answer)"


class QuizDataError(CoursegenError):
    """The quiz gradebook cannot be read."""


@dataclass
class Choice:
    label: dict[str, str]  # {"en", "zh"}
    correct: bool
    count: int = 0
    key: str = ""  # a catalogued wrong answer's key, when it is one


@dataclass
class QuestionReport:
    id: str
    type: str
    text: dict[str, str]
    points: float
    choices: list[Choice] = field(default_factory=list)
    answered: int = 0


@dataclass
class QuizReport:
    id: str
    title: dict[str, str]
    stats: QuizStats
    questions: list[QuestionReport]
    students: int


def read_quiz_results(path: Path) -> list[tuple]:
    """(student, quiz, question, response, points, max_points) of the latest run per (student, quiz)."""
    path = Path(path)
    if not path.exists():
        raise QuizDataError(f"{path}: no such quiz gradebook")
    try:
        from urllib.parse import quote

        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            import time

            db.execute("PRAGMA query_only = 1")
            db.execute("PRAGMA trusted_schema = 0")
            deadline = time.monotonic() + 300  # a tampered file never holds the report
            db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            views = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger')")]
            if views:
                raise QuizDataError(f"{path}: not a quiz gradebook: it holds {views[0]!r}, which none has")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "quiz_results" not in tables:
                raise QuizDataError(
                    f"{path}: no quiz results in this gradebook (write them with "
                    "`coursegen quiz grade --gradebook FILE`)"
                )
            every = db.execute(
                "SELECT run_id, student, quiz, question, response, points, max_points FROM quiz_results ORDER BY run_id"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise QuizDataError(f"{path}: not a readable quiz gradebook ({exc})") from None
    for row in every:  # SQLite keeps any type in any column: a tampered file is refused here
        run_id, student, quiz, question, response, points, max_points = row
        if not (
            type(run_id) is int
            and all(isinstance(v, str) and len(v) < 1 << 20 for v in (student, quiz, question))
            and (response is None or isinstance(response, str) and len(response) < 1 << 20)
            and all(type(v) in (int, float) for v in (points, max_points))
        ):
            raise QuizDataError(f"{path}: not a quiz gradebook: a row of quiz_results has values of the wrong type")
    latest: dict[tuple[str, str], int] = {}
    for run_id, student, quiz, *_ in every:
        latest[(student, quiz)] = run_id  # rows come in run order: the last one wins
    return sorted(
        (tuple(row[1:]) for row in every if latest[(row[1], row[2])] == row[0]), key=lambda r: (r[1], r[0], r[2])
    )


def quiz_reports(rows: list[tuple], quizzes: dict) -> list[QuizReport]:
    """One report per quiz found in `rows`; `quizzes` maps quiz id -> LoadedQuiz (may be empty)."""
    by_quiz: dict[str, list[tuple]] = {}
    for row in rows:
        by_quiz.setdefault(row[1], []).append(row)
    return [_quiz_report(quiz_id, by_quiz[quiz_id], quizzes.get(quiz_id)) for quiz_id in sorted(by_quiz)]


def _quiz_report(quiz_id: str, rows: list[tuple], loaded) -> QuizReport:
    from coursegen.quiz.variants import make_variant

    scores: dict[str, dict[str, float]] = {}
    max_points: dict[str, float] = {}
    responses: dict[str, list[tuple[str, str]]] = {}
    for student, _, question, response, points, top in rows:
        scores.setdefault(student, {})[question] = float(points)
        max_points.setdefault(question, float(top))
        responses.setdefault(question, []).append((student, response))
    practice = make_variant(loaded) if loaded is not None else None
    order = [item["id"] for item in practice["questions"]] if practice else []
    questions = sorted(max_points, key=lambda q: (order.index(q) if q in order else len(order), q))
    max_points = {q: max_points[q] for q in questions}
    title = practice["title"] if practice else {"en": quiz_id, "zh": quiz_id}
    items = {item["id"]: item for item in practice["questions"]} if practice else {}
    variants: dict[str, dict] = {}

    def item_of(student: str, question: str) -> dict | None:
        if loaded is None:
            return None
        if student not in variants:
            try:
                variants[student] = {i["id"]: i for i in make_variant(loaded, student)["questions"]}
            except ContentError:
                variants[student] = {}
        return variants[student].get(question)

    reports = []
    for question in questions:
        shown = items.get(question)
        report = QuestionReport(
            question,
            shown["type"] if shown else "",
            _plain(shown["text"]) if shown else {"en": question, "zh": question},
            max_points[question],
        )
        tally: dict[str, Choice] = {}
        for student, response in responses[question]:
            if response.strip():
                report.answered += 1
            for key, choice in _classify(item_of(student, question), response):
                if key in tally:
                    tally[key].count += 1
                else:
                    choice.count = 1
                    tally[key] = choice
        report.choices = sorted(tally.values(), key=lambda c: (not c.correct, -c.count, c.label["en"]))
        reports.append(report)
    stats = quiz_statistics(scores, max_points)
    return QuizReport(quiz_id, title, stats, reports, len(scores))


def _plain(text: dict[str, str]) -> dict[str, str]:
    """The question's Markdown on one line (rendered with its math by the report's templates)."""
    return {lang: re.sub(r"\s+", " ", value).strip() for lang, value in text.items()}


def _same(value: str) -> dict[str, str]:
    return {"en": value, "zh": value}


def _classify(item: dict | None, response: str) -> list[tuple[str, Choice]]:
    """What one response chose: [(tally key, Choice)] (several for a multiple-choice answer)."""
    text = response.strip()
    if not text:
        return [(UNANSWERED, Choice(_same(UNANSWERED), False))]
    if item is None:
        return [(f"raw:{text}", Choice(_same(text), False))]
    kind = kind_of(item["type"])
    return [
        (tally.key, Choice(tally.label, tally.correct, key=tally.wrong_key))
        for tally in kind.tally(item, kind.read(item, text))
    ]
