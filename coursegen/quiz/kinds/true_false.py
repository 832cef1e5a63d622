"""True or false: two fixed options, "True" (A) and "False" (B), each with its own feedback."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Literal

from coursegen.schema import Text

from ..question_model import QuestionBase
from ..values import bilingual
from .base import letters
from .options import OptionsKind

TRUE_FALSE_LABELS = ({"en": "True", "zh": "正确"}, {"en": "False", "zh": "错误"})
TRUE_WORDS = {"true", "t", "yes", "y", "对", "正确", "是"}
FALSE_WORDS = {"false", "f", "no", "n", "错", "错误", "否"}


class TrueFalseQuestion(QuestionBase):
    type: Literal["true_false"]
    answer: bool
    feedback_true: Text  # shown when the student answers "true"
    feedback_false: Text  # shown when the student answers "false"


class TrueFalse(OptionsKind):
    name = "true_false"
    model = TrueFalseQuestion
    how = {"en": "Answer A (true) or B (false).", "zh": "回答 A（正确）或 B（错误）。"}
    moodle_type = "truefalse"
    canvas_type = "true_false_question"

    def item(self, question: TrueFalseQuestion, rng: random.Random) -> dict:
        return {
            "options": [
                {
                    "text": dict(TRUE_FALSE_LABELS[0]),
                    "correct": question.answer is True,
                    "feedback": bilingual(question.feedback_true),
                },
                {
                    "text": dict(TRUE_FALSE_LABELS[1]),
                    "correct": question.answer is False,
                    "feedback": bilingual(question.feedback_false),
                },
            ]
        }

    def read(self, item: dict, response: str) -> list[int] | None:
        """A or B, or a word for true or false (true/false, t/f, yes/no, 对/错, ...)."""
        word = response.strip().casefold()
        if word in TRUE_WORDS | FALSE_WORDS:
            return [0 if word in TRUE_WORDS else 1]
        return letters(response, len(item["options"]))

    def gift(self, item: dict) -> list[str]:
        """`{TRUE#feedback if wrong#feedback if right}`."""
        from ..exports.gift_markup import html_text

        truth = item["options"][0]["correct"]
        right = next(o for o in item["options"] if o["correct"])["feedback"]
        wrong = next(o for o in item["options"] if not o["correct"])["feedback"]
        return [f"{'TRUE' if truth else 'FALSE'}#{html_text(wrong, True)}#{html_text(right, True)}"]

    def moodle(self, question: ET.Element, item: dict) -> None:
        from ..exports.moodle_xml_markup import add_answer

        for option, word in zip(item["options"], ("true", "false")):
            add_answer(question, 100 if option["correct"] else 0, word, option["feedback"], fmt="moodle_auto_format")


KIND = TrueFalse()
