"""Shape: a tensor shape, answered as `[4, 128, 32000]` (parentheses, `x`, bare commas and
`torch.Size([...])` also read). Also how a generated question whose answer function gives a
shape is asked."""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

from pydantic import Field

from coursegen.schema import Strict, Text

from ..exports.forms import shape_forms
from ..question_model import QuestionBase
from ..values import bilingual, format_shape
from .base import Computed
from .typed import FormsKind, wrongs


class ShapeWrong(Strict):
    value: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)
    feedback: Text


class ShapeQuestion(QuestionBase):
    """A tensor shape, answered as `[4, 128, 32000]` (brackets, parentheses and `x` also accepted)."""

    type: Literal["shape"]
    answer: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)
    feedback: Text
    wrong: list[ShapeWrong] = Field(default_factory=list)


# Responses are untrusted text: the parser below scans each character once (no regular
# expression that can backtrack).
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


class Shape(FormsKind):
    name = "shape"
    model = ShapeQuestion
    how = {"en": "Answer with a shape, e.g. [2, 3, 4].", "zh": "写出形状，例如 [2, 3, 4]。"}
    moodle_type = "shortanswer"
    canvas_type = "short_answer_question"
    generated_answer = "shape"
    placeholder = "shape_placeholder"

    def item(self, question: ShapeQuestion, rng: random.Random) -> dict:
        item: dict[str, Any] = {
            "answer": list(question.answer),
            "display": format_shape(question.answer),
            "feedback": bilingual(question.feedback),
            "wrong": wrongs(question.wrong),
        }
        for w in item["wrong"]:
            w["value"] = list(w["value"])
        return item

    def generated(self, question: Any, rng: random.Random, computed: Computed) -> dict:
        return {
            "answer": computed.answer,
            "display": computed.display,
            "feedback": computed.feedback,
            "wrong": computed.wrongs,
        }

    def problems(self, item: dict) -> list[str]:
        problems = []
        shapes = [w["value"] for w in item["wrong"]]
        if item["answer"] in shapes:
            problems.append(f"a distractor equals the answer {format_shape(item['answer'])}")
        if len({tuple(s) for s in shapes}) != len(shapes):
            problems.append("two distractors are the same shape")
        return problems

    def read(self, item: dict, response: str) -> list[int] | None:
        return parse_shape(response)

    def same(self, item: dict, read: list[int], value: list[int]) -> bool:
        return read == value

    def key_fields(self, item: dict) -> dict[str, Any]:
        return {"answer": item["answer"]}

    def forms(self, item: dict) -> list[str]:
        return shape_forms(item["answer"])

    def wrong_form(self, value: Any) -> str:
        return shape_forms(value)[0]


KIND = Shape()
