"""Single choice: exactly one option is right. Also how a generated question is asked as a choice
among its answer and the generated distractors."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Literal

from pydantic import model_validator

from .. import answers
from ..values import same_in_both
from .base import Computed
from .options import ChoiceQuestion, OptionsKind, moodle_multichoice, shuffled_options


class SingleQuestion(ChoiceQuestion):
    """Single choice: exactly one option is correct."""

    type: Literal["single"]

    @model_validator(mode="after")
    def _one_correct(self) -> "SingleQuestion":
        count = sum(o.correct for o in self.options)
        if count != 1:
            raise ValueError(f"a single-choice question needs exactly one option with 'correct: true', found {count}")
        return self


class Single(OptionsKind):
    name = "single"
    model = SingleQuestion
    how = {"en": "Answer with one letter.", "zh": "用一个字母作答。"}
    moodle_type = "multichoice"
    canvas_type = "multiple_choice_question"
    generated_answer = "any"

    def item(self, question: SingleQuestion, rng: random.Random) -> dict:
        return {"options": shuffled_options(question, rng)}

    def generated(self, question, rng: random.Random, computed: Computed) -> dict:
        """The answer and up to four distractors, shuffled; fewer than two distractors is refused."""
        options = [{"text": same_in_both(computed.display), "correct": True, "feedback": computed.feedback}]
        options += [
            {"text": same_in_both(computed.show(w["value"])), "correct": False, "feedback": w["feedback"]}
            for w in computed.wrongs[:4]
        ]
        if len(options) < 3:
            raise answers.InvalidParams("fewer than two distractors differ from the answer")
        rng.shuffle(options)
        return {"options": options}

    def gift(self, item: dict) -> list[str]:
        from ..exports.gift_markup import html_text

        return [
            f"{'=' if o['correct'] else '~'}{html_text(o['text'], True)}#{html_text(o['feedback'], True)}"
            for o in item["options"]
        ]

    def moodle(self, question: ET.Element, item: dict) -> None:
        moodle_multichoice(question, item, single=True)


KIND = Single()
