"""Matching: each left item to its right one. The item holds `pairs` ([{"left", "feedback"}] in
the written order), `choices` (the right sides, shuffled), `answer` (the index of each pair's
choice) and `feedback` (shown when every pair is right). A response gives, for each left item in
order, the letter of its choice; the score is the fraction of pairs right."""

from __future__ import annotations

import html
import random
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from coursegen.schema import Strict, Text

from ..question_model import QuestionBase
from ..text import html_mathml, plain_tex
from ..values import bilingual
from .base import LETTERS, NOT_RECOGNISED, DeckParts, Outcome, QuestionKind, Tally, letters


class MatchPair(Strict):
    left: Text
    right: Text
    feedback: Text  # shown when this left item is matched wrongly


class MatchingQuestion(QuestionBase):
    type: Literal["matching"]
    pairs: list[MatchPair] = Field(min_length=2)
    feedback: Text  # shown when every pair is right


class Matching(QuestionKind):
    name = "matching"
    model = MatchingQuestion
    how = {
        "en": 'For each numbered item in order, give the letter of its match, e.g. "B, A, C".',
        "zh": '按编号顺序写出每一项对应的字母，例如 "B, A, C"。',
    }
    page_partial = "questions/matching.html"
    moodle_type = "matching"
    canvas_type = "matching_question"

    def item(self, question: MatchingQuestion, rng: random.Random) -> dict:
        order = list(range(len(question.pairs)))
        rng.shuffle(order)  # order[k] = the pair whose right side is shown as choice k
        return {
            "pairs": [{"left": bilingual(p.left), "feedback": bilingual(p.feedback)} for p in question.pairs],
            "choices": [bilingual(question.pairs[k].right) for k in order],
            "answer": [order.index(i) for i in range(len(question.pairs))],
            "feedback": bilingual(question.feedback),
        }

    def problems(self, item: dict) -> list[str]:
        problems = []
        for lang in ("en", "zh"):
            lefts = [p["left"][lang].strip() for p in item["pairs"]]
            rights = [c[lang].strip() for c in item["choices"]]
            if len(set(lefts)) != len(lefts) or len(set(rights)) != len(rights):
                problems.append(f"two matching items read the same ({lang})")
        return problems

    def texts(self, item: dict) -> Iterator[tuple[str, dict[str, str]]]:
        yield "feedback", item["feedback"]
        for n, pair in enumerate(item["pairs"]):
            yield f"pair {n + 1}", pair["left"]
            yield f"pair {n + 1} feedback", pair["feedback"]
        for n, choice in enumerate(item["choices"]):
            yield f"matching choice {n + 1}", choice

    def read(self, item: dict, response: str) -> list[int] | None:
        return letters(response, len(item["choices"]))

    def grade(self, item: dict, read: list[int] | None) -> Outcome:
        """The fraction of pairs right; the feedback of each pair matched wrongly."""
        if read is None or len(read) != len(item["pairs"]):
            return Outcome(0.0, [NOT_RECOGNISED])
        wrong_pairs = [k for k, c in enumerate(read) if c != item["answer"][k]]
        score = 1 - len(wrong_pairs) / len(item["pairs"])
        return Outcome(score, [item["pairs"][k]["feedback"] for k in wrong_pairs] or [item["feedback"]])

    def tally(self, item: dict, read: list[int] | None) -> list[Tally]:
        return [Tally("matched", {"en": "answered", "zh": "已作答"}, False)]

    def answer_key(self, item: dict) -> str:
        return ", ".join(LETTERS[c] for c in item["answer"])

    def show_lines(self, item: dict, lang: str) -> list[str]:
        lines = [f"   {k + 1}. {p['left'][lang]}" for k, p in enumerate(item["pairs"])]
        return lines + [f"   {LETTERS[c]}. {choice[lang]}" for c, choice in enumerate(item["choices"])]

    def page(self, item: dict, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
        from coursegen.markdown import plain_text

        view = {
            "lefts": [html_mathml(p["left"][lang], inline=True) for p in item["pairs"]],
            "choices": [plain_text(c[lang]) for c in item["choices"]],
        }
        key = {
            "answer": list(item["answer"]),
            "feedback": [html_mathml(p["feedback"][lang], inline=True) for p in item["pairs"]],
            "right": html_mathml(item["feedback"][lang], inline=True),
        }
        return view, key

    def deck(self, view: dict, key: dict, ui: dict[str, str]) -> DeckParts:
        parts = DeckParts()
        lefts = "".join(f"<li>{left}</li>" for left in view["lefts"])
        choices = "".join(f"<li>{html.escape(choice)}</li>" for choice in view["choices"])
        parts.body.append(
            f'<div class="matching"><ol class="question-options">{lefts}</ol>'
            f'<ol class="question-options" type="a">{choices}</ol></div>'
        )
        pairs = "".join(
            f"<li>{left} → {html.escape(view['choices'][choice])}</li>"
            for left, choice in zip(view["lefts"], key["answer"])
        )
        parts.answer.append(f"<p><strong>{ui['answer']}:</strong></p><ol>{pairs}</ol>")
        if key.get("right"):
            parts.answer.append(f"<p>{key['right']}</p>")
        return parts

    def gift(self, item: dict) -> list[str]:
        """`{=left -> right ...}`."""
        from ..exports.gift_markup import html_text

        return [
            f"={html_text(p['left'], True)} -> {html_text(item['choices'][item['answer'][k]], True)}"
            for k, p in enumerate(item["pairs"])
        ]

    def moodle(self, question: ET.Element, item: dict) -> None:
        from ..exports.moodle_xml_markup import html_text, text_element

        ET.SubElement(question, "shuffleanswers").text = "true"
        text_element(question, "correctfeedback", html_text(item["feedback"]))
        for k, pair in enumerate(item["pairs"]):
            sub = text_element(question, "subquestion", html_text(pair["left"], True))
            right = item["choices"][item["answer"][k]]
            ET.SubElement(ET.SubElement(sub, "answer"), "text").text = " / ".join(
                dict.fromkeys(plain_tex(right[lang]) for lang in ("en", "zh"))
            )

    def qti(self, item: dict, ident: str, presentation: ET.Element, processing: ET.Element) -> list[tuple[str, dict]]:
        """One choice interaction per left item; each pair right adds its share of the score."""
        from ..exports.qti_markup import condition, html_text, material, set_score

        for k, pair in enumerate(item["pairs"]):
            lid = ET.SubElement(presentation, "response_lid", {"ident": f"response_{ident}_l{k + 1}"})
            material(lid, html_text(pair["left"], True))
            choice = ET.SubElement(lid, "render_choice")
            for c, right in enumerate(item["choices"]):
                label = ET.SubElement(choice, "response_label", {"ident": f"{ident}_r{c + 1}"})
                material(label, html_text(right, True))
        share = 100 / len(item["pairs"])
        for k, _pair in enumerate(item["pairs"]):
            cond, var = condition(processing)
            ET.SubElement(
                var, "varequal", {"respident": f"response_{ident}_l{k + 1}"}
            ).text = f"{ident}_r{item['answer'][k] + 1}"
            set_score(cond, share, "Add")
        return []


KIND = Matching()
