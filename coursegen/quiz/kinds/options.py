"""What the kinds answered by choosing options (single, multiple, true_false) share: the item's
`options` ([{"text", "correct", "feedback"}] in displayed order), responses given as letters, the
option list on the page, the deck and in `quiz show`, and the QTI choice interaction."""

from __future__ import annotations

import html
import random
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import Field

from coursegen.schema import Strict, Text

from ..question_model import QuestionBase
from ..text import html_mathml
from ..values import bilingual
from .base import LETTERS, NOT_RECOGNISED, DeckParts, Outcome, QuestionKind, Tally, letters, other


class Choice(Strict):
    text: Text
    correct: bool = False
    feedback: Text  # shown when this option is chosen


class ChoiceQuestion(QuestionBase):
    """Options written by hand (single and multiple)."""

    options: list[Choice] = Field(min_length=2)
    shuffle: bool = True


def shuffled_options(question: Any, rng: random.Random) -> list[dict]:
    """A choice question's options as item data, shuffled when the question says so."""
    options = [
        {"text": bilingual(o.text), "correct": o.correct, "feedback": bilingual(o.feedback)} for o in question.options
    ]
    if question.shuffle:
        rng.shuffle(options)
    return options


class OptionsKind(QuestionKind):
    """A kind whose item has `options`; subclasses say how many may be chosen and how they score."""

    page_partial = "questions/options.html"
    input_type: ClassVar[str] = "radio"  # the page's input per option
    cardinality: ClassVar[str] = "Single"  # QTI's rcardinality

    model: ClassVar[type[QuestionBase]]

    def problems(self, item: dict) -> list[str]:
        problems = []
        for lang in ("en", "zh"):
            texts = [o["text"][lang].strip() for o in item["options"]]
            dupes = sorted({t for t in texts if texts.count(t) > 1})
            if dupes:
                problems.append(f"two options read the same ({lang}): {dupes[0]!r}")
        return problems

    def texts(self, item: dict) -> Iterator[tuple[str, dict[str, str]]]:
        for n, option in enumerate(item["options"]):
            yield f"option {n + 1}", option["text"]
            yield f"option {n + 1} feedback", option["feedback"]

    def read(self, item: dict, response: str) -> list[int] | None:
        return letters(response, len(item["options"]))

    def grade(self, item: dict, read: list[int] | None) -> Outcome:
        """One option chosen: its feedback; right when it is the correct one."""
        if not read or len(read) != 1:
            return Outcome(0.0, [NOT_RECOGNISED])
        option = item["options"][read[0]]
        return Outcome(1.0 if option["correct"] else 0.0, [option["feedback"]])

    def tally(self, item: dict, read: list[int] | None) -> list[Tally]:
        if not read:
            return other()
        picked = []
        for index in sorted(set(read)):
            option = item["options"][index]
            label = option["text"]
            picked.append(Tally(f"option:{label['en']}", dict(label), bool(option["correct"])))
        return picked

    def answer_key(self, item: dict) -> str:
        return ", ".join(LETTERS[n] for n, o in enumerate(item["options"]) if o["correct"])

    def show_lines(self, item: dict, lang: str) -> list[str]:
        return [f"   {LETTERS[n]}. {o['text'][lang]}" for n, o in enumerate(item["options"])]

    def page(self, item: dict, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
        view = {
            "input": self.input_type,
            "options": [html_mathml(o["text"][lang], inline=True) for o in item["options"]],
        }
        key = {
            "correct": [n for n, o in enumerate(item["options"]) if o["correct"]],
            "feedback": [html_mathml(o["feedback"][lang], inline=True) for o in item["options"]],
        }
        return view, key

    def deck(self, view: dict, key: dict, ui: dict[str, str]) -> DeckParts:
        parts = DeckParts()
        options = "".join(
            f'<li data-correct="{"true" if n in key["correct"] else "false"}">'
            f'<span class="option-letter" aria-hidden="true">{LETTERS[n]}</span> {option}</li>'
            for n, option in enumerate(view["options"])
        )
        parts.body.append(f'<ol class="question-options" type="A">{options}</ol>')
        right = [n for n in key["correct"]]
        shown = ", ".join(LETTERS[n] for n in right)
        if len(right) == 1:
            parts.answer.append(f"<p><strong>{ui['answer']}: {shown}</strong> {view['options'][right[0]]}</p>")
        else:
            parts.answer.append(
                f'<p><strong>{ui["answer"]}: {shown}</strong></p><ul class="answer-options">'
                + "".join(f"<li>{LETTERS[n]}. {view['options'][n]}</li>" for n in right)
                + "</ul>"
            )
        parts.answer += [f"<p>{key['feedback'][n]}</p>" for n in right if key["feedback"][n]]
        for n, feedback in enumerate(key["feedback"]):
            if n not in right and feedback:
                label = html.escape(ui["if_chosen"].format(answer=LETTERS[n]))
                parts.notes.append(f"<p><strong>{label}:</strong> {feedback}</p>")
        return parts

    def qti_right(self, item: dict, ident: str, var: ET.Element) -> None:
        """The condition under which the response scores full marks: the one correct option."""
        right = next(n for n, o in enumerate(item["options"]) if o["correct"])
        ET.SubElement(var, "varequal", {"respident": "response1"}).text = f"{ident}_a{right + 1}"

    def qti(self, item: dict, ident: str, presentation: ET.Element, processing: ET.Element) -> list[tuple[str, dict]]:
        from ..exports.qti_markup import condition, html_text, material, set_score, show_feedback

        feedbacks: list[tuple[str, dict]] = []
        lid = ET.SubElement(presentation, "response_lid", {"ident": "response1", "rcardinality": self.cardinality})
        choice = ET.SubElement(lid, "render_choice")
        for n, option in enumerate(item["options"]):
            label = ET.SubElement(choice, "response_label", {"ident": f"{ident}_a{n + 1}"})
            material(label, html_text(option["text"], True))
        for n, option in enumerate(item["options"]):
            cond, var = condition(processing, cont=True)
            ET.SubElement(var, "varequal", {"respident": "response1"}).text = f"{ident}_a{n + 1}"
            show_feedback(cond, f"{ident}_a{n + 1}_fb")
            feedbacks.append((f"{ident}_a{n + 1}_fb", option["feedback"]))
        cond, var = condition(processing)
        self.qti_right(item, ident, var)
        set_score(cond, 100)
        return feedbacks


def moodle_multichoice(question: ET.Element, item: dict, single: bool) -> None:
    """Moodle's multichoice: full marks for the one right option, or shared among the right ones
    with the wrong ones sharing -100%."""
    from ..exports.moodle_xml_markup import add_answer, html_text

    ET.SubElement(question, "single").text = "true" if single else "false"
    ET.SubElement(question, "shuffleanswers").text = "0"
    ET.SubElement(question, "answernumbering").text = "ABCD"
    right = sum(o["correct"] for o in item["options"])
    wrong = len(item["options"]) - right
    for o in item["options"]:
        if single:
            percent: float = 100 if o["correct"] else 0
        else:
            percent = 100 / right if o["correct"] else -100 / wrong
        add_answer(question, percent, html_text(o["text"], True), o["feedback"])
