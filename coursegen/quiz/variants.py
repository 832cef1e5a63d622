"""One student's variant of a quiz: every question made concrete.

A variant is plain data (dicts, lists, strings, numbers) so that the exports, the site
page and the grader all read the same thing. Each question becomes an *item*:

    {"id", "type", "points", "objectives", "generated", "params",
     "text": {"en", "zh"}, "explanation": {"en", "zh"},
     and the fields of its kind (coursegen/quiz/kinds/<kind>.py, which makes them):
     single / multiple / true_false: "options": [{"text", "correct", "feedback"}]  (in displayed order)
     numeric: "answer", "tolerance": {"abs"| "rel"}, "decimals", "display", "feedback", "wrong": [{"value", "feedback", "key"}]
     shape:   "answer": [ints], "display", "feedback", "wrong"
     short:   "accepted": [str], "feedback", "wrong"
     matching: "pairs": [{"left", "feedback"}], "choices": [text], "answer": [choice index per pair], "feedback"}

Randomness comes from `stable_seed(student, quiz, question)`, a SHA-256 of the names (never
Python's salted hash()), so a variant is the same on every machine and every run, and
adding a question does not change the others.
"""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

from coursegen.errors import ContentError

from . import answers
from .kinds import kind_of
from .kinds.base import Computed
from .load import LoadedQuiz
from .schema import GeneratedQuestion, ParamRange, Tolerance
from .values import (
    bilingual as bilingual,
    format_number as format_number,
    format_shape as format_shape,
    normalise_short as normalise_short,
    same_in_both as same_in_both,
    short_number as short_number,
    tolerance_of as tolerance_of,
)
from grader.errors import CoursegenError

PRACTICE = "practice"  # the student id of the variant shown on the course site
IN_CLASS = "in-class"  # the student id of the variant every slide deck shows
MAX_DRAWS = 200  # parameter draws before a generated question gives up
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def stable_seed(*parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def fill(template: str, values: dict[str, Any]) -> str:
    """Replace {{name}} with values[name]; an unknown name is an error."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(name)
        return str(values[name])

    return PLACEHOLDER.sub(replace, template)


# ---- problems of one concrete item (shared by the quality gate and the generator) ----------


def item_problems(item: dict) -> list[str]:
    """What is wrong with a concrete item: distractors equal to the answer, duplicate options,
    a displayed answer that its own tolerance rejects."""
    return kind_of(item["type"]).problems(item)


# ---- hand-written questions ----------------------------------------------------------------


def _base(question, generated: bool) -> dict:
    return {
        "id": question.id,
        "type": question.type,
        "points": question.points,
        "objectives": list(question.objectives),
        "generated": generated,
        "params": {},
        "text": bilingual(question.text),
        "explanation": bilingual(question.explanation),
    }


def hand_written_item(question, rng: random.Random) -> dict:
    """The item of a hand-written question: the common fields, then its kind's."""
    return {**_base(question, generated=False), **kind_of(question.type).item(question, rng)}


# ---- generated questions -------------------------------------------------------------------


class GenerationError(CoursegenError):
    """A generated question could not be made concrete (the message says why)."""


def draw_params(question: GeneratedQuestion, rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, spec in question.generate.params.items():
        if isinstance(spec, ParamRange):
            lo, hi = spec.range
            params[name] = lo + spec.step * rng.randrange((hi - lo) // spec.step + 1)
        else:
            params[name] = rng.choice(spec.choices)
    return params


def _format(value: Any, kind: str, decimals: int) -> str:
    return format_shape(value) if kind == "shape" else format_number(value, decimals)


def answer_function_of(root: Path, question: GeneratedQuestion) -> answers.AnswerFunction:
    """The question's answer function, of the course at `root` (GenerationError when the course has
    none by that name)."""
    known = answers.answer_functions(root)
    function = known.get(question.generate.answer)
    if function is None:
        raise GenerationError(
            f"unknown answer function '{question.generate.answer}'; known: {', '.join(sorted(known))}"
        )
    return function


def _tolerance(question: GeneratedQuestion, kind: str) -> Tolerance | None:
    """Numbers: equal within the question's tolerance (or half its last displayed digit); shapes: exactly."""
    if kind != "number":
        return None
    return question.tolerance or Tolerance(abs=0.5 * 10**-question.decimals)


def same_number(value: float, answer: float, decimals: int) -> bool:
    """The wrong way gives the right number for these parameters: the same when shown with the
    question's decimals, or equal up to float32 rounding (a dtype slip, pair 0 of a rotation)."""
    close = abs(value - answer) <= 1e-6 * max(1.0, abs(answer))
    return close or format_number(value, decimals) == format_number(answer, decimals)


def accepted_wrongs(question: GeneratedQuestion, result: answers.Generated, kind: str) -> list[tuple[str, float]]:
    """(key, value) of every catalogued wrong answer (a mistake of the catalogue or a named
    distractor of the answer function) that differs from the key yet falls within the question's
    tolerance of it: a student making that mistake would be told "Right". A wrong answer that is the
    key's number (`same_number`) is not one: on these parameters that way of going wrong gives the
    right number."""
    tolerance = _tolerance(question, kind)
    if tolerance is None:
        return []
    answer = float(result.answer)
    found = []
    for key, wrong in result.wrong.items():
        value = float(wrong.value)
        if tolerance.accepts(value, answer) and not same_number(value, answer, question.decimals):
            found.append((key, value))
    return found


def generated_item(
    root: Path,
    question: GeneratedQuestion,
    params: dict[str, Any],
    rng: random.Random,
    result: answers.Generated | None = None,
) -> dict:
    """The concrete item for these parameters, computed by the course at `root` (`result`: the
    answer function's, if already computed). Raises answers.InvalidParams when the parameters do not fit together or a
    catalogued mistake would be accepted as right, GenerationError when the question itself is broken."""
    function = answer_function_of(root, question)
    if set(params) != set(function.params):
        raise GenerationError(
            f"answer function '{function.name}' takes parameters "
            f"{', '.join(function.params)}; the question gives {', '.join(params) or 'none'}"
        )
    if result is None:
        result = function.func(**params)
    kind = function.kind
    expected = kind_of(question.type).generated_answer
    if expected != "any" and kind != expected:
        raise GenerationError(f"answer function '{function.name}' returns a {kind}, not a {expected}")
    tolerance = _tolerance(question, kind)  # numbers: equal within it; shapes: equal exactly
    if kind == "number":
        answer: Any = float(result.answer)
        assert tolerance is not None
        accepted = accepted_wrongs(question, result, kind)
        if accepted:  # never hand out a variant that would call a known mistake right
            mistake, given = accepted[0]
            raise answers.InvalidParams(
                f"the wrong answer '{mistake}' gives {given!r}, within the tolerance {tolerance.describe()} of the key {answer!r}"
            )
    else:
        answer = [int(n) for n in result.answer]

    def same_value(value: Any, other: Any) -> bool:
        return tolerance.accepts(value, other) if tolerance is not None else value == other

    display = _format(answer, kind, question.decimals)
    values = {**params, **result.facts, "answer": display}
    item = _base(question, generated=True)
    item["params"] = dict(params)
    try:
        item["text"] = {lang: fill(text, values) for lang, text in bilingual(question.text).items()}
        item["explanation"] = {lang: fill(text, values) for lang, text in bilingual(question.explanation).items()}
        feedback = {lang: fill(text, values) for lang, text in bilingual(question.feedback).items()}
    except KeyError as exc:
        raise GenerationError(
            f"{{{{{exc.args[0]}}}}} is not a parameter of '{function.name}' (available: {', '.join(sorted(values))})"
        ) from None

    wrongs: list[dict] = []
    for key, wrong in result.wrong.items():
        value = float(wrong.value) if kind == "number" else [int(n) for n in wrong.value]
        if same_value(value, answer) and wrong.from_mistake:
            continue  # this mistake gives exactly the right answer here: it cannot be told apart
        if any(same_value(value, w["value"]) for w in wrongs):
            continue  # two ways of going wrong that give the same value: keep the first
        if key in question.wrong_feedback:
            text = bilingual(question.wrong_feedback[key])
        elif wrong.feedback is not None:
            text = bilingual(wrong.feedback)
        elif question.default_wrong_feedback is not None:
            text = bilingual(question.default_wrong_feedback)
        else:
            raise GenerationError(
                f"distractor '{key}' of '{function.name}' has no feedback: "
                f"add wrong_feedback: {{{key}: {{en: ..., zh: ...}}}} or default_wrong_feedback"
            )
        wrongs.append({"value": value, "feedback": {lang: fill(t, values) for lang, t in text.items()}, "key": key})

    computed = Computed(
        answer=answer,
        display=display,
        feedback=feedback,
        wrongs=wrongs,
        tolerance=tolerance,
        decimals=question.decimals,
        show=lambda value: _format(value, kind, question.decimals),
    )
    item.update(kind_of(question.type).generated(question, rng, computed))
    return item


def generate_item(root: Path, question: GeneratedQuestion, rng: random.Random) -> dict:
    """Draw parameters until they fit and the item passes the quality checks (answers computed by
    the course at `root`)."""
    last = "no draw"
    for _ in range(MAX_DRAWS):
        params = draw_params(question, rng)
        try:
            item = generated_item(root, question, params, rng)
        except answers.InvalidParams as exc:
            last = str(exc)
            continue
        problems = item_problems(item)
        if not problems:
            return item
        last = problems[0]
    raise GenerationError(f"no valid variant in {MAX_DRAWS} draws of the parameters (last problem: {last})")


# ---- a whole quiz --------------------------------------------------------------------------


def make_variant(loaded: LoadedQuiz, student: str = PRACTICE) -> dict:
    """The quiz as `student` sees it (deterministic in (student, quiz id))."""
    quiz = loaded.quiz
    items = []
    for index, question in enumerate(quiz.questions):
        rng = random.Random(stable_seed(student, quiz.id, question.id))
        try:
            item = (
                generate_item(loaded.course_root, question, rng)
                if isinstance(question, GeneratedQuestion)
                else hand_written_item(question, rng)
            )
        except GenerationError as exc:
            raise ContentError(loaded.where(index, "generate"), f"question '{question.id}': {exc}") from None
        items.append(item)
    title = quiz.title or (loaded.lesson.title if loaded.lesson else None)
    return {
        "quiz": quiz.id,
        "lesson": quiz.lesson,
        "student": student,
        "title": bilingual(title) if title else same_in_both(quiz.id),
        "max_score": sum(item["points"] for item in items),
        "questions": items,
    }
