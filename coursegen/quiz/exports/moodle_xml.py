"""Moodle XML export (Question bank -> Import -> Moodle XML format).

Types: single/multiple -> `multichoice` (`<single>true|false</single>`), true_false ->
`truefalse`, numeric -> `numerical` (relative tolerance converted to absolute), shape and
short -> `shortanswer` (every accepted form at 100%, catalogued wrong answers at 0% with
their feedback), matching -> `matching`. Text is HTML with LaTeX math in \\( \\) and both
languages in Moodle multi-language spans. Built with ElementTree, so every character is
escaped by the XML writer.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..text import html_tex, moodle_multilang, plain_tex
from ..variants import tolerance_of
from .forms import fraction, shape_forms

MOODLE_TYPE = {
    "single": "multichoice",
    "multiple": "multichoice",
    "true_false": "truefalse",
    "numeric": "numerical",
    "shape": "shortanswer",
    "short": "shortanswer",
    "matching": "matching",
}


def _html(text: dict, inline: bool = False) -> str:
    return moodle_multilang(text, lambda s: html_tex(s, inline=inline))


def _text(parent: ET.Element, tag: str, value: str, fmt: str | None = "html") -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = value
    return element


def _answer(
    parent: ET.Element,
    percent: float,
    text: str,
    feedback: dict,
    fmt: str | None = "html",
    tolerance: float | None = None,
) -> None:
    attrs = {"fraction": fraction(percent)}
    if fmt:
        attrs["format"] = fmt
    answer = ET.SubElement(parent, "answer", attrs)
    ET.SubElement(answer, "text").text = text
    if tolerance is not None:
        ET.SubElement(answer, "tolerance").text = repr(tolerance)
    _text(answer, "feedback", _html(feedback, True))


def question(item: dict, quiz: str, student: str) -> ET.Element:
    kind = item["type"]
    q = ET.Element("question", {"type": MOODLE_TYPE[kind]})
    name = f"{quiz}/{item['id']}" + (f"/{student}" if student != "practice" else "")
    ET.SubElement(ET.SubElement(q, "name"), "text").text = name
    _text(q, "questiontext", _html(item["text"]))
    _text(q, "generalfeedback", _html(item["explanation"]))
    ET.SubElement(q, "defaultgrade").text = str(item["points"])
    ET.SubElement(q, "penalty").text = "0"
    ET.SubElement(q, "hidden").text = "0"
    if kind in ("single", "multiple"):
        ET.SubElement(q, "single").text = "true" if kind == "single" else "false"
        ET.SubElement(q, "shuffleanswers").text = "0"
        ET.SubElement(q, "answernumbering").text = "ABCD"
        right = sum(o["correct"] for o in item["options"])
        wrong = len(item["options"]) - right
        for o in item["options"]:
            if kind == "single":
                percent = 100 if o["correct"] else 0
            else:
                percent = 100 / right if o["correct"] else -100 / wrong
            _answer(q, percent, _html(o["text"], True), o["feedback"])
    elif kind == "true_false":
        for option, word in zip(item["options"], ("true", "false")):
            _answer(q, 100 if option["correct"] else 0, word, option["feedback"], fmt="moodle_auto_format")
    elif kind == "numeric":
        tol = tolerance_of(item)
        margin = tol.abs if tol.abs is not None else tol.rel * abs(item["answer"])
        _answer(q, 100, repr(item["answer"]), item["feedback"], fmt="moodle_auto_format", tolerance=margin)
        for w in item["wrong"]:
            wrong_margin = tol.abs if tol.abs is not None else tol.rel * abs(w["value"])
            _answer(q, 0, repr(w["value"]), w["feedback"], fmt="moodle_auto_format", tolerance=wrong_margin)
    elif kind in ("shape", "short"):
        ET.SubElement(q, "usecase").text = "0"
        forms = shape_forms(item["answer"]) if kind == "shape" else item["accepted"]
        for form in forms:
            _answer(q, 100, form, item["feedback"], fmt="moodle_auto_format")
        for w in item["wrong"]:
            value = shape_forms(w["value"])[0] if kind == "shape" else w["value"]
            _answer(q, 0, value, w["feedback"], fmt="moodle_auto_format")
    elif kind == "matching":
        ET.SubElement(q, "shuffleanswers").text = "true"
        _text(q, "correctfeedback", _html(item["feedback"]))
        for k, pair in enumerate(item["pairs"]):
            sub = _text(q, "subquestion", _html(pair["left"], True))
            right = item["choices"][item["answer"][k]]
            ET.SubElement(ET.SubElement(sub, "answer"), "text").text = " / ".join(
                dict.fromkeys(plain_tex(right[lang]) for lang in ("en", "zh"))
            )
    return q


def render(variants: list[dict]) -> str:
    root = ET.Element("quiz")
    for variant in variants:
        category = ET.SubElement(root, "question", {"type": "category"})
        path = f"$course$/coursegen/{variant['quiz']}" + (
            f"/{variant['student']}" if variant["student"] != "practice" else ""
        )
        ET.SubElement(ET.SubElement(category, "category"), "text").text = path
        for item in variant["questions"]:
            root.append(question(item, variant["quiz"], variant["student"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
