"""A toy question kind, written the way a new kind is added: this one module (its model, items,
reading and grading a response, report tally, views and LMS renderings) plus its page partial.
It is registered by tests/quiz/test_toy_question_kind.py for the length of a test only, never in
coursegen.quiz.kinds.KINDS.

`interval`: a whole number between `low` and `high` (inclusive) is right, e.g. "a sequence length
that fits the context window".
"""

from __future__ import annotations

import html
import random
import xml.etree.ElementTree as ET
from typing import Any, Literal

from coursegen.quiz.kinds.base import NOT_RECOGNISED, WRONG, DeckParts, Outcome, QuestionKind, Tally, other
from coursegen.quiz.schema import QuestionBase
from coursegen.quiz.text import html_mathml
from coursegen.quiz.values import bilingual
from coursegen.schema import Text

PARTIAL_NAME = "questions/interval.html"
PARTIAL = """  <p class="quiz-answer quiz-interval">{{ q.between }}
    <input class="quiz-input" id="q-{{ q.id }}-answer" type="text" name="q{{ q.number }}" inputmode="numeric"></p>
"""


class IntervalQuestion(QuestionBase):
    type: Literal["interval"]
    low: int
    high: int
    feedback: Text  # shown for a number in the interval


class Interval(QuestionKind):
    name = "interval"
    model = IntervalQuestion
    how = {"en": "Answer with a whole number.", "zh": "用一个整数作答。"}
    page_partial = PARTIAL_NAME
    moodle_type = "numerical"
    canvas_type = "numerical_question"

    def item(self, question: IntervalQuestion, rng: random.Random) -> dict:
        return {
            "low": question.low,
            "high": question.high,
            "display": f"{question.low}..{question.high}",
            "feedback": bilingual(question.feedback),
        }

    def problems(self, item: dict) -> list[str]:
        return [] if item["low"] <= item["high"] else [f"the interval {item['display']} is empty"]

    def read(self, item: dict, response: str) -> int | None:
        text = response.strip()
        return int(text) if text.lstrip("-").isdecimal() and len(text) < 20 else None

    def grade(self, item: dict, read: int | None) -> Outcome:
        if read is None:
            return Outcome(0.0, [NOT_RECOGNISED])
        inside = item["low"] <= read <= item["high"]
        return Outcome(1.0, [item["feedback"]]) if inside else Outcome(0.0, [WRONG])

    def tally(self, item: dict, read: int | None) -> list[Tally]:
        if read is None:
            return other()
        inside = item["low"] <= read <= item["high"]
        return [Tally("inside" if inside else "outside", {"en": "inside", "zh": "区间内"}, inside)]

    def page(self, item: dict, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
        between = {"en": "A whole number between", "zh": "介于"}[lang] + f" {item['low']} – {item['high']}"
        key = {"low": item["low"], "high": item["high"], "right": html_mathml(item["feedback"][lang], inline=True)}
        return {"between": between}, key

    def deck(self, view: dict, key: dict, ui: dict[str, str]) -> DeckParts:
        return DeckParts(
            body=[f'<p class="interval">{html.escape(view["between"])}</p>'],
            answer=[f"<p><strong>{ui['answer']}: {key['low']} … {key['high']}</strong></p>"],
        )

    def gift(self, item: dict) -> list[str]:
        from coursegen.quiz.exports.gift_markup import html_text

        return [f"#={item['low']}..{item['high']}#{html_text(item['feedback'], True)}"]

    def moodle(self, question: ET.Element, item: dict) -> None:
        from coursegen.quiz.exports.moodle_xml_markup import add_answer

        middle, half = (item["low"] + item["high"]) / 2, (item["high"] - item["low"]) / 2
        add_answer(question, 100, repr(middle), item["feedback"], fmt="moodle_auto_format", tolerance=half)

    def qti(self, item: dict, ident: str, presentation: ET.Element, processing: ET.Element) -> list[tuple[str, dict]]:
        from coursegen.quiz.exports.qti_markup import condition, set_score, show_feedback

        box = ET.SubElement(presentation, "response_str", {"ident": "response1", "rcardinality": "Single"})
        ET.SubElement(ET.SubElement(box, "render_fib", {"fibtype": "Decimal"}), "response_label", {"ident": "answer1"})
        cond, var = condition(processing)
        both = ET.SubElement(var, "and")
        ET.SubElement(both, "vargte", {"respident": "response1"}).text = str(item["low"])
        ET.SubElement(both, "varlte", {"respident": "response1"}).text = str(item["high"])
        show_feedback(cond, "correct_fb")
        set_score(cond, 100)
        return [("correct_fb", item["feedback"])]


KIND = Interval()
