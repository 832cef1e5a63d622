"""QTI 1.2 elements the question kinds write their responses and scoring with (coursegen.quiz.exports.qti
assembles the zip)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from ..text import both_languages, html_mathml
from .forms import fraction


def html_text(text: dict, inline: bool = False) -> str:
    return both_languages(text, lambda s: html_mathml(s, inline=inline))


def material(parent: ET.Element, html: str) -> None:
    ET.SubElement(ET.SubElement(parent, "material"), "mattext", {"texttype": "text/html"}).text = html


def _meta(parent: ET.Element, fields: list[tuple[str, str]]) -> None:
    meta = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields:
        field = ET.SubElement(meta, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def condition(resprocessing: ET.Element, *, cont: bool = False) -> tuple[ET.Element, ET.Element]:
    cond = ET.SubElement(resprocessing, "respcondition", {"continue": "Yes" if cont else "No"})
    return cond, ET.SubElement(cond, "conditionvar")


def set_score(cond: ET.Element, value: float, action: str = "Set") -> None:
    ET.SubElement(cond, "setvar", {"action": action, "varname": "SCORE"}).text = fraction(value)


def show_feedback(cond: ET.Element, ident: str) -> None:
    ET.SubElement(cond, "displayfeedback", {"feedbacktype": "Response", "linkrefid": ident})


def _item_feedback(item_el: ET.Element, ident: str, text: dict) -> None:
    fb = ET.SubElement(item_el, "itemfeedback", {"ident": ident})
    material(ET.SubElement(fb, "flow_mat"), html_text(text, True))
