"""Numeric: a number, right within a tolerance (`abs` or `rel`); catalogued wrong numbers get
their own feedback. Also how a generated question whose answer function gives a number is asked."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any, Literal

from pydantic import Field

from coursegen.schema import Strict, Text

from ..question_model import QuestionBase, Tolerance
from ..values import bilingual, format_number, tolerance_of
from .base import Computed
from .typed import TypedKind, wrongs


class NumericWrong(Strict):
    """A typical wrong number and the feedback a student who gives it should read."""

    value: float
    feedback: Text


class NumericQuestion(QuestionBase):
    type: Literal["numeric"]
    answer: float
    tolerance: Tolerance
    decimals: int = Field(default=4, ge=0, le=10)  # how the answer is displayed
    feedback: Text
    wrong: list[NumericWrong] = Field(default_factory=list)


# Responses are untrusted text: the parser below scans each character once (no regular
# expression that can backtrack: `\d+\.?\d*` took 24 s on a 40 000-digit number followed by a letter).


def _digits_end(text: str, i: int) -> int:
    """The end of the run of decimal digits starting at `i` (== i when there is none)."""
    while i < len(text) and text[i].isdecimal():
        i += 1
    return i


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


def margin(tolerance: Tolerance, value: float) -> float:
    """The absolute tolerance around `value` (a relative tolerance scales with it): LMSs take one."""
    if tolerance.abs is not None:
        return tolerance.abs
    assert tolerance.rel is not None, "Tolerance: exactly one of abs and rel"
    return tolerance.rel * abs(value)


class Numeric(TypedKind):
    name = "numeric"
    model = NumericQuestion
    how = {"en": "Answer with a number.", "zh": "用一个数作答。"}
    moodle_type = "numerical"
    canvas_type = "numerical_question"
    generated_answer = "number"
    inputmode = "decimal"
    fibtype = "Decimal"

    def item(self, question: NumericQuestion, rng: random.Random) -> dict:
        item: dict[str, Any] = {
            "answer": float(question.answer),
            "tolerance": question.tolerance.model_dump(exclude_none=True),
            "decimals": question.decimals,
            "display": format_number(question.answer, question.decimals),
            "feedback": bilingual(question.feedback),
            "wrong": wrongs(question.wrong),
        }
        for w in item["wrong"]:
            w["value"] = float(w["value"])
        return item

    def generated(self, question: Any, rng: random.Random, computed: Computed) -> dict:
        assert computed.tolerance is not None, "a number's tolerance (variants._tolerance)"
        return {
            "answer": computed.answer,
            "tolerance": computed.tolerance.model_dump(exclude_none=True),
            "decimals": computed.decimals,
            "display": computed.display,
            "feedback": computed.feedback,
            "wrong": computed.wrongs,
        }

    def problems(self, item: dict) -> list[str]:
        problems: list[str] = []
        tol = tolerance_of(item)
        if not tol.accepts(float(item["display"]), item["answer"]):
            problems.append(
                f"the displayed answer {item['display']} is outside its own tolerance "
                f"{tol.describe()} of {item['answer']!r}: show more decimals or widen the tolerance"
            )
        values: list[float] = []
        for wrong in item["wrong"]:
            if tol.accepts(wrong["value"], item["answer"]):
                problems.append(
                    f"distractor {wrong['value']!r} ({wrong['key']}) equals the answer "
                    f"{item['answer']!r} within tolerance {tol.describe()}"
                )
            if any(tol.accepts(wrong["value"], v) and tol.accepts(v, wrong["value"]) for v in values):
                problems.append(f"two distractors are equal within tolerance: {wrong['value']!r}")
            values.append(wrong["value"])
        return problems

    def read(self, item: dict, response: str) -> float | None:
        return parse_number(response)

    def same(self, item: dict, read: float, value: float) -> bool:
        return tolerance_of(item).accepts(read, value)

    def key_fields(self, item: dict) -> dict[str, Any]:
        return {"answer": item["answer"], "tolerance": item["tolerance"]}

    def gift(self, item: dict) -> list[str]:
        """`{#=answer:margin#fb =%0%wrong:margin#fb}` (a relative tolerance as the equivalent absolute one)."""
        from ..exports.gift_markup import html_text

        tol = tolerance_of(item)
        out = [f"#={item['answer']!r}:{margin(tol, item['answer'])!r}#{html_text(item['feedback'], True)}"]
        out += [
            f"=%0%{w['value']!r}:{margin(tol, w['value'])!r}#{html_text(w['feedback'], True)}" for w in item["wrong"]
        ]
        return out

    def moodle(self, question: ET.Element, item: dict) -> None:
        from ..exports.moodle_xml_markup import add_answer

        tol = tolerance_of(item)
        add_answer(
            question,
            100,
            repr(item["answer"]),
            item["feedback"],
            fmt="moodle_auto_format",
            tolerance=margin(tol, item["answer"]),
        )
        for w in item["wrong"]:
            add_answer(
                question,
                0,
                repr(w["value"]),
                w["feedback"],
                fmt="moodle_auto_format",
                tolerance=margin(tol, w["value"]),
            )

    def qti_right(self, item: dict, var: ET.Element) -> None:
        """The answer itself, or a value within its margin."""
        within = margin(tolerance_of(item), item["answer"])
        either = ET.SubElement(var, "or")
        ET.SubElement(either, "varequal", {"respident": "response1"}).text = repr(item["answer"])
        both = ET.SubElement(either, "and")
        ET.SubElement(both, "vargte", {"respident": "response1"}).text = repr(item["answer"] - within)
        ET.SubElement(both, "varlte", {"respident": "response1"}).text = repr(item["answer"] + within)


KIND = Numeric()
