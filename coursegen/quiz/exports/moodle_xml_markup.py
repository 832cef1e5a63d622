"""Moodle XML elements the question kinds write their answers with (coursegen.quiz.exports.moodle_xml
assembles the file)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from ..text import html_tex, moodle_multilang
from .forms import fraction


def html_text(text: dict, inline: bool = False) -> str:
    return moodle_multilang(text, lambda s: html_tex(s, inline=inline))


def text_element(parent: ET.Element, tag: str, value: str, fmt: str | None = "html") -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = value
    return element


def add_answer(
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
    text_element(answer, "feedback", html_text(feedback, True))
