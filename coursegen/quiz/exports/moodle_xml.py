"""Moodle XML export (Question bank -> Import -> Moodle XML format).

Each question kind adds its own elements (`moodle` of coursegen.quiz.kinds). Types: single/multiple -> `multichoice` (`<single>true|false</single>`), true_false ->
`truefalse`, numeric -> `numerical` (relative tolerance converted to absolute), shape and
short -> `shortanswer` (every accepted form at 100%, catalogued wrong answers at 0% with
their feedback), matching -> `matching`. Text is HTML with LaTeX math in \\( \\) and both
languages in Moodle multi-language spans. Built with ElementTree, so every character is
escaped by the XML writer.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .moodle_xml_markup import html_text, text_element


def question(item: dict, quiz: str, student: str) -> ET.Element:
    from ..kinds import kind_of

    kind = kind_of(item["type"])
    q = ET.Element("question", {"type": kind.moodle_type})
    name = f"{quiz}/{item['id']}" + (f"/{student}" if student != "practice" else "")
    ET.SubElement(ET.SubElement(q, "name"), "text").text = name
    text_element(q, "questiontext", html_text(item["text"]))
    text_element(q, "generalfeedback", html_text(item["explanation"]))
    ET.SubElement(q, "defaultgrade").text = str(item["points"])
    ET.SubElement(q, "penalty").text = "0"
    ET.SubElement(q, "hidden").text = "0"
    kind.moodle(q, item)
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
