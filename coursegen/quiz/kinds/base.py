"""What a question kind is: the one interface every part of the quiz engine calls.

A kind (single choice, numeric, matching, ...) is one module of coursegen/quiz/kinds/ holding one
`QuestionKind`: its model (the schema of a hand-written question of that `type:`), how a variant's
item is made (by hand, or from a generated answer), what is wrong with an item, how a student's
response is read (once: grading and the class report both use `read`), graded and tallied, and its
views: the quiz page (a template partial under templates/questions/ and the answer key quiz.js
reads), the slide deck, `coursegen quiz show`, and the GIFT, Moodle XML and QTI renderings.
The registry (coursegen.quiz.kinds) lists the kinds; nothing else in the engine names one.

An item is plain data (see coursegen.quiz.variants): the fields every item has, plus the ones its
kind adds.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import Any, Callable, ClassVar

from ..question_model import QuestionBase, Tolerance

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NOT_RECOGNISED = {
    "en": "This answer could not be read; see the expected format.",
    "zh": "无法识别这个答案，请查看答题格式。",
}
WRONG = {"en": "Not right.", "zh": "不正确。"}
OTHER = "(other)"  # the class report's tally of a response that matches nothing catalogued


@dataclass(frozen=True)
class Outcome:
    score: float  # 0..1 of the question's points
    feedback: list[dict]  # [{"en", "zh"}], the per-answer feedback to show


@dataclass(frozen=True)
class Tally:
    """What one response chose, as the class report counts it."""

    key: str  # responses with the same key are counted together
    label: dict[str, str]  # {"en", "zh"}
    correct: bool
    wrong_key: str = ""  # a catalogued wrong answer's key, when it is one


def other() -> list[Tally]:
    return [Tally(OTHER, {"en": OTHER, "zh": OTHER}, False)]


@dataclass(frozen=True)
class Computed:
    """A generated question's answer for one student's parameters, as the variant maker computed it."""

    answer: Any  # a float or a shape (list of ints)
    display: str  # the answer as shown
    feedback: dict[str, str]  # shown for the right answer
    wrongs: list[dict]  # [{"value", "feedback", "key"}], distinct from the answer and each other
    tolerance: Tolerance | None  # numbers: equal within it; shapes: None (equal exactly)
    decimals: int
    show: Callable[[Any], str]  # a value (the answer's or a wrong one's) as shown


@dataclass
class DeckParts:
    """A question's slide: what is asked, the answer revealed, the speaker notes."""

    body: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def letters(response: str, count: int) -> list[int] | None:
    """Option letters ("A, C", "ac", "1 3") as indexes below `count`; None when one is not a letter."""
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


class QuestionKind:
    """One kind of question. Subclasses set the class attributes and implement every method."""

    name: ClassVar[str]  # the `type:` of its questions in a quiz file, and its items' "type"
    model: ClassVar[type[QuestionBase]]  # a hand-written question of this kind
    how: ClassVar[dict[str, str]]  # `coursegen quiz show`: how to answer, {"en", "zh"}
    page_partial: ClassVar[str]  # its view on the quiz page: a template (templates/questions/...)
    moodle_type: ClassVar[str]  # Moodle XML's question type
    canvas_type: ClassVar[str]  # Canvas QTI's question_type
    # what a generated question of this type asks for: an answer function's kind ("number", "shape")
    # or "any"; None: the kind is hand-written only
    generated_answer: ClassVar[str | None] = None

    # ---- the variant ------------------------------------------------------------------------

    def item(self, question: Any, rng: random.Random) -> dict:
        """The kind's fields of a hand-written question's item (the common ones are added by the caller)."""
        raise NotImplementedError

    def generated(self, question: Any, rng: random.Random, computed: Computed) -> dict:
        """The kind's fields of a generated question's item; raises answers.InvalidParams when these
        parameters cannot make a good item."""
        raise NotImplementedError(f"a '{self.name}' question cannot be generated")

    def problems(self, item: dict) -> list[str]:
        """What is wrong with a concrete item (distractors equal to the answer, duplicate options, ...)."""
        return []

    def texts(self, item: dict) -> Iterator[tuple[str, dict[str, str]]]:
        """The kind's bilingual texts of an item as (where, {"en", "zh"}), for the quality gate's checks
        of translations and math (the question's text and explanation are the caller's)."""
        if "feedback" in item:
            yield "feedback", item["feedback"]

    # ---- responses --------------------------------------------------------------------------

    def read(self, item: dict, response: str) -> Any:
        """The response as the kind understands it (indexes, a number, a shape, ...); None: unreadable."""
        raise NotImplementedError

    def grade(self, item: dict, read: Any) -> Outcome:
        """The score and feedback of a response that `read` returned."""
        raise NotImplementedError

    def tally(self, item: dict, read: Any) -> list[Tally]:
        """What the class report counts for a (non-empty) response that `read` returned."""
        raise NotImplementedError

    # ---- views ------------------------------------------------------------------------------

    def answer_key(self, item: dict) -> str:
        """The key as `coursegen quiz show --answers` prints it."""
        return str(item["display"])

    def show_lines(self, item: dict, lang: str) -> list[str]:
        """The lines `coursegen quiz show` prints under the question text (its options, ...)."""
        return []

    def page(self, item: dict, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """(what the page's partial shows, what quiz.js reads to check it), beyond the common fields."""
        raise NotImplementedError

    def deck(self, view: dict, key: dict, ui: dict[str, str]) -> DeckParts:
        """The question's slide from its page view and key (`ui`: the deck's words in its language)."""
        raise NotImplementedError

    # ---- LMS renderings ---------------------------------------------------------------------

    def gift(self, item: dict) -> list[str]:
        """The answer lines inside a GIFT question's braces."""
        raise NotImplementedError

    def moodle(self, question: ET.Element, item: dict) -> None:
        """Add the kind's elements (answers, ...) to a Moodle XML <question>."""
        raise NotImplementedError

    def qti(self, item: dict, ident: str, presentation: ET.Element, processing: ET.Element) -> list[tuple[str, dict]]:
        """Add the response and its scoring to a QTI item; returns its (feedback ident, text)s."""
        raise NotImplementedError
