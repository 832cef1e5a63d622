"""Short answer: any of `accepted`, compared after normalisation (case, width, spaces, end punctuation)."""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field

from coursegen.schema import Strict, Text

from ..question_model import QuestionBase
from ..values import bilingual, normalise_short
from .typed import FormsKind, wrongs


class ShortWrong(Strict):
    value: str = Field(min_length=1)
    feedback: Text


class ShortQuestion(QuestionBase):
    """Short answer: any of `accepted` (compared after normalisation: case, width, spaces)."""

    type: Literal["short"]
    accepted: list[str] = Field(min_length=1)
    feedback: Text
    wrong: list[ShortWrong] = Field(default_factory=list)


class Short(FormsKind):
    name = "short"
    model = ShortQuestion
    how = {"en": "Answer with a word or a short phrase.", "zh": "用一个词或短语作答。"}
    moodle_type = "shortanswer"
    canvas_type = "short_answer_question"

    def item(self, question: ShortQuestion, rng: random.Random) -> dict:
        return {
            "accepted": list(question.accepted),
            "display": question.accepted[0],
            "feedback": bilingual(question.feedback),
            "wrong": wrongs(question.wrong),
        }

    def problems(self, item: dict) -> list[str]:
        problems = []
        accepted = [normalise_short(a) for a in item["accepted"]]
        if len(set(accepted)) != len(accepted):
            problems.append("two accepted answers are the same after normalisation")
        for wrong in item["wrong"]:
            if normalise_short(wrong["value"]) in accepted:
                problems.append(f"distractor {wrong['value']!r} is also an accepted answer")
        return problems

    def read(self, item: dict, response: str) -> str:
        return normalise_short(response)

    def is_right(self, item: dict, read: str) -> bool:
        return read in {normalise_short(a) for a in item["accepted"]}

    def same(self, item: dict, read: str, value: str) -> bool:
        return read == normalise_short(value)

    def answer_key(self, item: dict) -> str:
        return " | ".join(item["accepted"])

    def key_fields(self, item: dict) -> dict[str, Any]:
        return {"accepted": item["accepted"]}

    def forms(self, item: dict) -> list[str]:
        return list(item["accepted"])


KIND = Short()
