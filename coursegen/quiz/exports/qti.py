"""Canvas QTI 1.2 export: a zip with imsmanifest.xml and one assessment per quiz variant.

Layout (what Canvas' "QTI .zip file" import reads):

    imsmanifest.xml                      one <resource type="imsqti_xmlv1p2"> per assessment
    <ident>/<ident>.xml                  <questestinterop><assessment><section><item>...

Each question kind adds its response and scoring (`qti` of coursegen.quiz.kinds) and names its Canvas type in itemmetadata `question_type`: multiple_choice_question,
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

from .qti_markup import html_text, material, _meta, condition, show_feedback, _item_feedback

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CP_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def item(item: dict, ident: str) -> ET.Element:
    from ..kinds import kind_of

    kind = kind_of(item["type"])
    el = ET.Element("item", {"ident": ident, "title": item["id"]})
    _meta(
        ET.SubElement(el, "itemmetadata"),
        [("question_type", kind.canvas_type), ("points_possible", f"{item['points']:.1f}")],
    )
    presentation = ET.SubElement(el, "presentation")
    material(presentation, html_text(item["text"]))
    rp = ET.SubElement(el, "resprocessing")
    outcomes = ET.SubElement(rp, "outcomes")
    ET.SubElement(outcomes, "decvar", {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"})
    cond, var = condition(rp, cont=True)
    ET.SubElement(var, "other")
    show_feedback(cond, "general_fb")

    feedbacks = kind.qti(item, ident, presentation, rp)
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
