"""Multiple answers: one or more options are right; all the right ones must be chosen."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Literal

from pydantic import model_validator

from ..exports.forms import fraction
from .base import NOT_RECOGNISED, Outcome
from .options import ChoiceQuestion, OptionsKind, moodle_multichoice, shuffled_options


class MultipleQuestion(ChoiceQuestion):
    """Multiple answers: one or more options are correct; all correct ones must be chosen."""

    type: Literal["multiple"]

    @model_validator(mode="after")
    def _some_correct(self) -> "MultipleQuestion":
        if not any(o.correct for o in self.options):
            raise ValueError("a multiple-answer question needs at least one option with 'correct: true'")
        return self


class Multiple(OptionsKind):
    name = "multiple"
    model = MultipleQuestion
    how = {"en": 'Answer with every right letter, e.g. "A, C".', "zh": '写出所有正确选项的字母，例如 "A, C"。'}
    moodle_type = "multichoice"
    canvas_type = "multiple_answers_question"
    input_type = "checkbox"
    cardinality = "Multiple"

    def item(self, question: MultipleQuestion, rng: random.Random) -> dict:
        return {"options": shuffled_options(question, rng)}

    def grade(self, item: dict, read: list[int] | None) -> Outcome:
        """All or nothing: exactly the right options; the feedback of each option chosen."""
        if not read:
            return Outcome(0.0, [NOT_RECOGNISED])
        right = {n for n, o in enumerate(item["options"]) if o["correct"]}
        return Outcome(1.0 if set(read) == right else 0.0, [item["options"][n]["feedback"] for n in sorted(set(read))])

    def gift(self, item: dict) -> list[str]:
        """Right options share 100%, wrong ones share -100%."""
        from ..exports.gift_markup import html_text

        right = sum(o["correct"] for o in item["options"])
        wrong = len(item["options"]) - right
        out = []
        for o in item["options"]:
            weight = fraction(100 / right) if o["correct"] else fraction(-100 / wrong)
            out.append(f"~%{weight}%{html_text(o['text'], True)}#{html_text(o['feedback'], True)}")
        return out

    def moodle(self, question: ET.Element, item: dict) -> None:
        moodle_multichoice(question, item, single=False)

    def qti_right(self, item: dict, ident: str, var: ET.Element) -> None:
        """Every right option chosen and no wrong one."""
        both = ET.SubElement(var, "and")
        for n, option in enumerate(item["options"]):
            target = both if option["correct"] else ET.SubElement(both, "not")
            ET.SubElement(target, "varequal", {"respident": "response1"}).text = f"{ident}_a{n + 1}"


KIND = Multiple()
