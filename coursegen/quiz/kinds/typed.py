"""What the kinds answered by typing a value (numeric, shape, short) share: the item's `feedback`
for the right answer and `wrong` ([{"value", "feedback", "key"}], catalogued wrong answers, each
with its own feedback), the text box on the page, the answer and the wrong answers' feedback on
the deck, and the QTI fill-in-the-blank interaction."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, ClassVar

from ..text import html_mathml
from ..values import bilingual, short_number
from .base import NOT_RECOGNISED, WRONG, DeckParts, Outcome, QuestionKind, Tally, other


def wrongs(entries: Any) -> list[dict]:
    """A hand-written question's catalogued wrong answers as item data (keys wrong-1, wrong-2, ...)."""
    return [
        {"value": w.value, "feedback": bilingual(w.feedback), "key": f"wrong-{i + 1}"} for i, w in enumerate(entries)
    ]


class TypedKind(QuestionKind):
    """A kind whose response is one typed value; subclasses read it and compare it."""

    page_partial = "questions/typed.html"
    inputmode: ClassVar[str] = ""  # the page's text box: a keyboard hint ("decimal")
    placeholder: ClassVar[str] = ""  # the page's text box: a key of the quiz page's words shown in it
    fibtype: ClassVar[str] = ""  # QTI's render_fib type, if any

    def texts(self, item: dict) -> Iterator[tuple[str, dict[str, str]]]:
        yield "feedback", item["feedback"]
        for wrong in item["wrong"]:
            yield f"feedback of wrong answer {wrong['value']!r}", wrong["feedback"]

    def same(self, item: dict, read: Any, value: Any) -> bool:
        """Whether the response (as read) is `value` (the answer or a wrong one's)."""
        raise NotImplementedError

    def is_right(self, item: dict, read: Any) -> bool:
        return self.same(item, read, item["answer"])

    def match(self, item: dict, read: Any) -> tuple[bool, dict | None]:
        """(right, the first catalogued wrong answer it is) of a readable response."""
        if self.is_right(item, read):
            return True, None
        return False, next((w for w in item["wrong"] if self.same(item, read, w["value"])), None)

    def grade(self, item: dict, read: Any) -> Outcome:
        """All or nothing; a catalogued wrong answer gets its own feedback."""
        if read is None:
            return Outcome(0.0, [NOT_RECOGNISED])
        right, wrong = self.match(item, read)
        if right:
            return Outcome(1.0, [item["feedback"]])
        return Outcome(0.0, [wrong["feedback"] if wrong is not None else WRONG])

    def tally(self, item: dict, read: Any) -> list[Tally]:
        if read is None:
            return other()
        right, wrong = self.match(item, read)
        if right:
            return [Tally("correct", {"en": "correct answer", "zh": "正确答案"}, True)]
        if wrong is not None:
            key = wrong["key"]
            label = {lang: f"{key}: {wrong['feedback'][lang]}" for lang in ("en", "zh")}
            return [Tally(f"wrong:{key}", label, False, key)]
        return other()

    def key_fields(self, item: dict) -> dict[str, Any]:
        """What quiz.js needs to check a response besides the feedback (the answer, its tolerance, ...)."""
        raise NotImplementedError

    def page(self, item: dict, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
        view = {"inputmode": self.inputmode, "placeholder": self.placeholder}
        key: dict[str, Any] = {
            "right": html_mathml(item["feedback"][lang], inline=True),
            "wrong": [
                {"value": w["value"], "feedback": html_mathml(w["feedback"][lang], inline=True)} for w in item["wrong"]
            ],
        }
        key.update(self.key_fields(item))
        key["display"] = item["display"]
        return view, key

    def deck(self, view: dict, key: dict, ui: dict[str, str]) -> DeckParts:
        parts = DeckParts()
        shown = html.escape(str(key.get("display") or ", ".join(key.get("accepted", []))))
        parts.answer.append(f"<p><strong>{ui['answer']}: {shown}</strong></p>")
        if key.get("right"):
            parts.answer.append(f"<p>{key['right']}</p>")
        for wrong in key.get("wrong", []):
            label = html.escape(ui["if_chosen"].format(answer=short_number(wrong["value"])))
            parts.notes.append(f"<p><strong>{label}:</strong> {wrong['feedback']}</p>")
        return parts

    def qti_right(self, item: dict, var: ET.Element) -> None:
        """The condition under which the typed response scores full marks."""
        raise NotImplementedError

    def qti(self, item: dict, ident: str, presentation: ET.Element, processing: ET.Element) -> list[tuple[str, dict]]:
        from ..exports.qti_markup import condition, set_score, show_feedback

        fib = ET.SubElement(
            ET.SubElement(presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}),
            "render_fib",
            {"fibtype": self.fibtype} if self.fibtype else {},
        )
        ET.SubElement(fib, "response_label", {"ident": "answer1", "rshuffle": "No"})
        cond, var = condition(processing)
        self.qti_right(item, var)
        show_feedback(cond, "correct_fb")
        set_score(cond, 100)
        return [("correct_fb", item["feedback"])]


class FormsKind(TypedKind):
    """A typed kind an LMS checks by comparing strings: every accepted spelling of the answer."""

    def forms(self, item: dict) -> list[str]:
        """Every accepted spelling of the answer."""
        raise NotImplementedError

    def wrong_form(self, value: Any) -> str:
        """How a catalogued wrong answer is written."""
        return str(value)

    def gift(self, item: dict) -> list[str]:
        from ..exports.gift_markup import escape, html_text

        out = [f"={escape(form)}#{html_text(item['feedback'], True)}" for form in self.forms(item)]
        out += [f"=%0%{escape(self.wrong_form(w['value']))}#{html_text(w['feedback'], True)}" for w in item["wrong"]]
        return out

    def moodle(self, question: ET.Element, item: dict) -> None:
        """`shortanswer`: every accepted form at 100%, the catalogued wrong answers at 0% with their feedback."""
        from ..exports.moodle_xml_markup import add_answer

        ET.SubElement(question, "usecase").text = "0"
        for form in self.forms(item):
            add_answer(question, 100, form, item["feedback"], fmt="moodle_auto_format")
        for w in item["wrong"]:
            add_answer(question, 0, self.wrong_form(w["value"]), w["feedback"], fmt="moodle_auto_format")

    def qti_right(self, item: dict, var: ET.Element) -> None:
        for form in self.forms(item):
            ET.SubElement(var, "varequal", {"respident": "response1"}).text = form
