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
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location

from .load import LoadedQuiz
from .variants import make_variant, normalise_short, tolerance_of

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TRUE_WORDS = {"true", "t", "yes", "y", "对", "正确", "是"}
FALSE_WORDS = {"false", "f", "no", "n", "错", "错误", "否"}
COLUMNS = ("student", "quiz", "question", "response")
NOT_RECOGNISED = {
    "en": "This answer could not be read; see the expected format.",
    "zh": "无法识别这个答案，请查看答题格式。",
}
WRONG = {"en": "Not right.", "zh": "不正确。"}


@dataclass(frozen=True)
class Outcome:
    score: float  # 0..1 of the question's points
    feedback: list[dict]  # [{"en", "zh"}], the per-answer feedback to show


def _letters(response: str, count: int) -> list[int] | None:
    tokens = [t for t in re.split(r"[\s,;]+", response.strip().upper()) if t]
    if len(tokens) == 1 and len(tokens[0]) > 1 and tokens[0].isalpha():
        tokens = list(tokens[0])
    indexes = []
    for token in tokens:
        if len(token) == 1 and token in LETTERS[:count]:
            indexes.append(LETTERS.index(token))
        elif token.isdigit() and 1 <= int(token) <= count:
            indexes.append(int(token) - 1)
        else:
            return None
    return indexes


# Responses are untrusted text: both parsers below scan each character once (no regular
# expression that can backtrack: `\d+\.?\d*` took 24 s on a 40 000-digit number followed by a letter).
SHAPE_SEPARATORS = frozenset(",x×*")
MAX_DIMENSION_DIGITS = 100  # no tensor has a dimension of more digits; int() refuses over 4300


def _digits_end(text: str, i: int) -> int:
    """The end of the run of decimal digits starting at `i` (== i when there is none)."""
    while i < len(text) and text[i].isdecimal():
        i += 1
    return i


def _space_end(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def parse_shape(response: str) -> list[int] | None:
    r"""[2, 3] from "[2, 3]", "(2,3)", "2x3", "2 × 3", "torch.Size([2, 3])", "(4,)"; None otherwise.
    The rule of the former pattern `[\[\(]?\s*\d+(\s*(,|x|×|\*)\s*\d+)*\s*,?\s*[\]\)]?`,
    scanned in one pass."""
    text = response.strip()
    if text.startswith("torch.Size(") and text.endswith(")") and "\n" not in text:
        text = text[len("torch.Size(") : -1]
    i = 1 if text[:1] in ("[", "(") else 0
    numbers: list[str] = []
    while True:
        i = _space_end(text, i)
        end = _digits_end(text, i)
        if end == i:
            if not numbers:
                return None
            break  # after a trailing comma
        numbers.append(text[i:end])
        i = _space_end(text, end)
        if i < len(text) and text[i] in SHAPE_SEPARATORS:
            separator, i = text[i], i + 1
            if _digits_end(text, _space_end(text, i)) == _space_end(text, i) and separator != ",":
                return None  # "2x" with nothing after: only a comma may end the list
            continue
        break
    i = _space_end(text, i)
    if i < len(text) and text[i] in ("]", ")"):
        i += 1
    if i != len(text) or any(len(n) > MAX_DIMENSION_DIGITS for n in numbers):
        return None
    return [int(n) for n in numbers]


def is_number(text: str) -> bool:
    r"""`[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?` as a whole (the rule of templates/assets/quiz.js),
    scanned in one pass."""
    i = 1 if text[:1] in ("+", "-") else 0
    integer_end = _digits_end(text, i)
    if integer_end > i:
        i = integer_end
        if text[i : i + 1] == ".":
            i = _digits_end(text, i + 1)
    elif text[i : i + 1] == "." and _digits_end(text, i + 1) > i + 1:
        i = _digits_end(text, i + 1)
    else:
        return False
    if text[i : i + 1] in ("e", "E"):
        j = i + 1 + (text[i + 1 : i + 2] in ("+", "-"))
        exponent_end = _digits_end(text, j)
        if exponent_end == j:
            return False
        i = exponent_end
    return i == len(text)


def parse_number(response: str) -> float | None:
    text = "".join(response.split())
    return float(text) if is_number(text) else None


def check(item: dict, response: str) -> Outcome:
    """Score one response to one concrete item and pick the feedback to show."""
    kind = item["type"]
    if kind in ("single", "true_false"):
        word = response.strip().casefold()
        chosen: list[int] | None
        if kind == "true_false" and word in TRUE_WORDS | FALSE_WORDS:
            chosen = [0 if word in TRUE_WORDS else 1]
        else:
            chosen = _letters(response, len(item["options"]))
        if not chosen or len(chosen) != 1:
            return Outcome(0.0, [NOT_RECOGNISED])
        option = item["options"][chosen[0]]
        return Outcome(1.0 if option["correct"] else 0.0, [option["feedback"]])
    if kind == "multiple":
        chosen = _letters(response, len(item["options"]))
        if not chosen:
            return Outcome(0.0, [NOT_RECOGNISED])
        right = {n for n, o in enumerate(item["options"]) if o["correct"]}
        return Outcome(
            1.0 if set(chosen) == right else 0.0, [item["options"][n]["feedback"] for n in sorted(set(chosen))]
        )
    if kind == "numeric":
        value = parse_number(response)
        if value is None:
            return Outcome(0.0, [NOT_RECOGNISED])
        tol = tolerance_of(item)
        if tol.accepts(value, item["answer"]):
            return Outcome(1.0, [item["feedback"]])
        for wrong in item["wrong"]:
            if tol.accepts(value, wrong["value"]):
                return Outcome(0.0, [wrong["feedback"]])
        return Outcome(0.0, [WRONG])
    if kind == "shape":
        shape = parse_shape(response)
        if shape is None:
            return Outcome(0.0, [NOT_RECOGNISED])
        if shape == item["answer"]:
            return Outcome(1.0, [item["feedback"]])
        for wrong in item["wrong"]:
            if shape == wrong["value"]:
                return Outcome(0.0, [wrong["feedback"]])
        return Outcome(0.0, [WRONG])
    if kind == "short":
        text = normalise_short(response)
        if text in {normalise_short(a) for a in item["accepted"]}:
            return Outcome(1.0, [item["feedback"]])
        for wrong in item["wrong"]:
            if text == normalise_short(wrong["value"]):
                return Outcome(0.0, [wrong["feedback"]])
        return Outcome(0.0, [WRONG])
    if kind == "matching":
        chosen = _letters(response, len(item["choices"]))
        if chosen is None or len(chosen) != len(item["pairs"]):
            return Outcome(0.0, [NOT_RECOGNISED])
        wrong_pairs = [k for k, c in enumerate(chosen) if c != item["answer"][k]]
        score = 1 - len(wrong_pairs) / len(item["pairs"])
        return Outcome(score, [item["pairs"][k]["feedback"] for k in wrong_pairs] or [item["feedback"]])
    raise ValueError(f"unknown question type {kind!r}")


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
