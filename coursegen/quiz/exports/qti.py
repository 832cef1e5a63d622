"""Canvas QTI 1.2 export: a zip with imsmanifest.xml and one assessment per quiz variant.

Layout (what Canvas' "QTI .zip file" import reads):

    imsmanifest.xml                      one <resource type="imsqti_xmlv1p2"> per assessment
    <ident>/<ident>.xml                  <questestinterop><assessment><section><item>...

Each item names its Canvas type in itemmetadata `question_type`: multiple_choice_question,
multiple_answers_question, true_false_question, numerical_question (a range from the
tolerance), short_answer_question (shape and short; every accepted form), matching_question.
Feedback: per answer (`<itemfeedback ident="<answer>_fb">`), plus the explanation as
general feedback. Text is HTML with MathML and both languages. Zip entries have a fixed
timestamp and order, so the same quiz gives the same bytes.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile

from ..text import both_languages, html_mathml
from ..variants import tolerance_of
from .forms import fraction, shape_forms

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CP_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
CANVAS_TYPE = {
    "single": "multiple_choice_question",
    "multiple": "multiple_answers_question",
    "true_false": "true_false_question",
    "numeric": "numerical_question",
    "shape": "short_answer_question",
    "short": "short_answer_question",
    "matching": "matching_question",
}
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _html(text: dict, inline: bool = False) -> str:
    return both_languages(text, lambda s: html_mathml(s, inline=inline))


def _material(parent: ET.Element, html: str) -> None:
    ET.SubElement(ET.SubElement(parent, "material"), "mattext", {"texttype": "text/html"}).text = html


def _meta(parent: ET.Element, fields: list[tuple[str, str]]) -> None:
    meta = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields:
        field = ET.SubElement(meta, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry


def _condition(resprocessing: ET.Element, *, cont: bool = False) -> tuple[ET.Element, ET.Element]:
    cond = ET.SubElement(resprocessing, "respcondition", {"continue": "Yes" if cont else "No"})
    return cond, ET.SubElement(cond, "conditionvar")


def _score(cond: ET.Element, value: float, action: str = "Set") -> None:
    ET.SubElement(cond, "setvar", {"action": action, "varname": "SCORE"}).text = fraction(value)


def _feedback(cond: ET.Element, ident: str) -> None:
    ET.SubElement(cond, "displayfeedback", {"feedbacktype": "Response", "linkrefid": ident})


def _item_feedback(item_el: ET.Element, ident: str, text: dict) -> None:
    fb = ET.SubElement(item_el, "itemfeedback", {"ident": ident})
    _material(ET.SubElement(fb, "flow_mat"), _html(text, True))


def item(item: dict, ident: str) -> ET.Element:
    kind = item["type"]
    el = ET.Element("item", {"ident": ident, "title": item["id"]})
    _meta(
        ET.SubElement(el, "itemmetadata"),
        [("question_type", CANVAS_TYPE[kind]), ("points_possible", f"{item['points']:.1f}")],
    )
    presentation = ET.SubElement(el, "presentation")
    _material(presentation, _html(item["text"]))
    rp = ET.SubElement(el, "resprocessing")
    outcomes = ET.SubElement(rp, "outcomes")
    ET.SubElement(outcomes, "decvar", {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"})
    cond, var = _condition(rp, cont=True)
    ET.SubElement(var, "other")
    _feedback(cond, "general_fb")
    feedbacks: list[tuple[str, dict]] = []

    if kind in ("single", "multiple", "true_false"):
        lid = ET.SubElement(
            presentation,
            "response_lid",
            {"ident": "response1", "rcardinality": "Multiple" if kind == "multiple" else "Single"},
        )
        choice = ET.SubElement(lid, "render_choice")
        for n, option in enumerate(item["options"]):
            label = ET.SubElement(choice, "response_label", {"ident": f"{ident}_a{n + 1}"})
            _material(label, _html(option["text"], True))
        for n, option in enumerate(item["options"]):
            cond, var = _condition(rp, cont=True)
            ET.SubElement(var, "varequal", {"respident": "response1"}).text = f"{ident}_a{n + 1}"
            _feedback(cond, f"{ident}_a{n + 1}_fb")
            feedbacks.append((f"{ident}_a{n + 1}_fb", option["feedback"]))
        cond, var = _condition(rp)
        if kind == "multiple":
            both = ET.SubElement(var, "and")
            for n, option in enumerate(item["options"]):
                target = both if option["correct"] else ET.SubElement(both, "not")
                ET.SubElement(target, "varequal", {"respident": "response1"}).text = f"{ident}_a{n + 1}"
        else:
            right = next(n for n, o in enumerate(item["options"]) if o["correct"])
            ET.SubElement(var, "varequal", {"respident": "response1"}).text = f"{ident}_a{right + 1}"
        _score(cond, 100)
    elif kind in ("numeric", "shape", "short"):
        attrs = {"fibtype": "Decimal"} if kind == "numeric" else {}
        fib = ET.SubElement(
            ET.SubElement(presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}),
            "render_fib",
            attrs,
        )
        ET.SubElement(fib, "response_label", {"ident": "answer1", "rshuffle": "No"})
        cond, var = _condition(rp)
        if kind == "numeric":
            tol = tolerance_of(item)
            margin = tol.abs if tol.abs is not None else tol.rel * abs(item["answer"])
            either = ET.SubElement(var, "or")
            ET.SubElement(either, "varequal", {"respident": "response1"}).text = repr(item["answer"])
            both = ET.SubElement(either, "and")
            ET.SubElement(both, "vargte", {"respident": "response1"}).text = repr(item["answer"] - margin)
            ET.SubElement(both, "varlte", {"respident": "response1"}).text = repr(item["answer"] + margin)
        else:
            forms = shape_forms(item["answer"]) if kind == "shape" else item["accepted"]
            for form in forms:
                ET.SubElement(var, "varequal", {"respident": "response1"}).text = form
        _feedback(cond, "correct_fb")
        _score(cond, 100)
        feedbacks.append(("correct_fb", item["feedback"]))
    elif kind == "matching":
        for k, pair in enumerate(item["pairs"]):
            lid = ET.SubElement(presentation, "response_lid", {"ident": f"response_{ident}_l{k + 1}"})
            _material(lid, _html(pair["left"], True))
            choice = ET.SubElement(lid, "render_choice")
            for c, right in enumerate(item["choices"]):
                label = ET.SubElement(choice, "response_label", {"ident": f"{ident}_r{c + 1}"})
                _material(label, _html(right, True))
        share = 100 / len(item["pairs"])
        for k, _pair in enumerate(item["pairs"]):
            cond, var = _condition(rp)
            ET.SubElement(
                var, "varequal", {"respident": f"response_{ident}_l{k + 1}"}
            ).text = f"{ident}_r{item['answer'][k] + 1}"
            _score(cond, share, "Add")
    _item_feedback(el, "general_fb", item["explanation"])
    for ident_fb, text in feedbacks:
        _item_feedback(el, ident_fb, text)
    return el


def assessment(variant: dict, ident: str) -> str:
    ET.register_namespace("", QTI_NS)
    root = ET.Element("questestinterop", {"xmlns": QTI_NS})
    title = variant["title"]["en"] + (
        "" if variant["title"]["en"] == variant["title"]["zh"] else " / " + variant["title"]["zh"]
    )
    test = ET.SubElement(root, "assessment", {"ident": ident, "title": title})
    _meta(test, [("cc_maxattempts", "1")])
    section = ET.SubElement(test, "section", {"ident": "root_section"})
    for n, question in enumerate(variant["questions"]):
        section.append(item(question, f"{ident}_q{n + 1}"))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _ident(variant: dict) -> str:
    raw = variant["quiz"] + ("" if variant["student"] == "practice" else "_" + variant["student"])
    return "g" + "".join(c if c.isalnum() or c in "-_" else "_" for c in raw)


def manifest(idents: list[str]) -> str:
    root = ET.Element("manifest", {"identifier": "coursegen_quiz_export", "xmlns": CP_NS})
    meta = ET.SubElement(root, "metadata")
    ET.SubElement(meta, "schema").text = "IMS Content"
    ET.SubElement(meta, "schemaversion").text = "1.1.3"
    ET.SubElement(root, "organizations")
    resources = ET.SubElement(root, "resources")
    for ident in idents:
        resource = ET.SubElement(
            resources, "resource", {"identifier": ident, "type": "imsqti_xmlv1p2", "href": f"{ident}/{ident}.xml"}
        )
        ET.SubElement(resource, "file", {"href": f"{ident}/{ident}.xml"})
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(variants: list[dict]) -> bytes:
    idents = [_ident(v) for v in variants]
    if len(set(idents)) != len(idents):
        raise ValueError("two variants would share one assessment identifier")
    entries = {"imsmanifest.xml": manifest(idents)}
    for variant, ident in zip(variants, idents):
        entries[f"{ident}/{ident}.xml"] = assessment(variant, ident)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ["imsmanifest.xml"] + sorted(n for n in entries if n != "imsmanifest.xml"):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, entries[name].encode("utf-8"), compresslevel=9)
    return buffer.getvalue()
