"""Exports, each parsed back: GIFT (a small parser below), Moodle XML, Canvas QTI zip, JSON."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
import zipfile

import pytest

from coursegen.quiz.exports import render
from coursegen.quiz.exports.gift_markup import escape
from coursegen.quiz.variants import make_variant

CANVAS_TYPES = {
    "multiple_choice_question",
    "multiple_answers_question",
    "true_false_question",
    "numerical_question",
    "short_answer_question",
    "matching_question",
}


@pytest.fixture
def variants(loaded):
    return [make_variant(loaded, "practice"), make_variant(loaded, "alice")]


# ---- a minimal GIFT reader: enough to prove the escaping round-trips -----------------------


def gift_unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append("\n" if text[i + 1] == "n" else text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_unescaped(text: str, separators: str) -> list[tuple[str, str]]:
    """Split at unescaped separator characters: [(separator before, part)]."""
    parts, current, sep, i = [], [], "", 0
    while i < len(text):
        if text[i] == "\\":
            current.append(text[i : i + 2])
            i += 2
            continue
        if text[i] in separators:
            parts.append((sep, "".join(current)))
            current, sep = [], text[i]
        else:
            current.append(text[i])
        i += 1
    parts.append((sep, "".join(current)))
    return parts


def gift_questions(document: str) -> list[dict]:
    questions = []
    for block in re.split(r"\n\n+", document):
        if not block.startswith("::"):
            continue
        name_end = block.index("::", 2)
        name = gift_unescape(block[2:name_end])
        rest = block[name_end + 2 :]
        body_parts = split_unescaped(rest, "{}")
        assert len(body_parts) == 3, f"unbalanced unescaped braces in {name}"
        text, answers = body_parts[0][1], body_parts[1][1]
        answers, _, general = answers.partition("####")
        questions.append(
            {
                "name": name,
                "text": gift_unescape(text),
                "answers": answers.strip(),
                "general": gift_unescape(general.strip()),
            }
        )
    return questions


def test_gift_escaping_round_trips_every_special_character():
    original = "a ~ b = c # d { e } f : g \\( x_{i} \\) \\\\ end"
    assert gift_unescape(escape(original)) == original
    assert all(split_unescaped(escape(original), "~=#{}:") == [("", escape(original))] for _ in [0])


def test_gift_questions_parse_back_with_their_text_and_math(variants):
    questions = gift_questions(render(variants, "gift").decode())
    assert len(questions) == sum(len(v["questions"]) for v in variants)
    first = questions[0]
    assert first["name"] == "mini/pick-one"
    assert "{tricky} ~ = # : ?" in first["text"] and "\\(h\\)" in first["text"]
    assert "\\(W \\in \\mathbb{R}^{V \\times D}\\)" in questions[0]["general"]


def test_gift_single_choice_has_one_right_answer_and_feedback_for_each(variants):
    first = gift_questions(render(variants[:1], "gift").decode())[0]
    answers = [part for part in split_unescaped(first["answers"], "=~") if part[1].strip()]
    assert [sep for sep, _ in answers].count("=") == 1 and len(answers) == 3
    assert all(len(split_unescaped(part, "#")) == 2 for _, part in answers)


def test_gift_numeric_gives_tolerance_and_wrong_values(variants):
    num = next(q for q in gift_questions(render(variants[:1], "gift").decode()) if q["name"] == "mini/num")
    assert num["answers"].startswith("#=30.0:0.0#") and "=%0%13.0:0.0#" in num["answers"]


def test_moodle_xml_parses_with_the_moodle_question_types(variants):
    root = ET.fromstring(render(variants[:1], "moodle-xml"))
    types = [q.get("type") for q in root.findall("question")]
    assert types[0] == "category"
    assert set(types[1:]) == {"multichoice", "truefalse", "numerical", "shortanswer", "matching"}


def test_moodle_xml_multiple_answer_fractions_sum_to_100(variants):
    root = ET.fromstring(render(variants[:1], "moodle-xml"))
    multi = next(q for q in root.findall("question") if q.findtext("single") == "false")
    assert sum(
        float(a.get("fraction")) for a in multi.findall("answer") if float(a.get("fraction")) > 0
    ) == pytest.approx(100)


def test_moodle_xml_numeric_answer_carries_its_tolerance(variants):
    root = ET.fromstring(render(variants[:1], "moodle-xml"))
    numeric = next(
        q for q in root.findall("question") if q.get("type") == "numerical" and q.findtext("name/text") == "mini/num"
    )
    right = next(a for a in numeric.findall("answer") if a.get("fraction") == "100")
    assert right.findtext("text") == "30.0" and right.findtext("tolerance") == "0.0"


def test_qti_zip_has_a_manifest_naming_each_assessment(variants):
    archive = zipfile.ZipFile(io.BytesIO(render(variants, "qti")))
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    hrefs = [f.get("href") for f in manifest.iter("{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}file")]
    assert len(hrefs) == 2 and all(h in archive.namelist() for h in hrefs)


def test_qti_items_use_question_types_canvas_recognises(variants):
    archive = zipfile.ZipFile(io.BytesIO(render(variants[:1], "qti")))
    name = next(n for n in archive.namelist() if n != "imsmanifest.xml")
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    root = ET.fromstring(archive.read(name))
    items = root.findall(".//q:item", ns)
    types = []
    for item in items:
        fields = {
            f.findtext("q:fieldlabel", namespaces=ns): f.findtext("q:fieldentry", namespaces=ns)
            for f in item.findall(".//q:qtimetadatafield", ns)
        }
        types.append(fields["question_type"])
    assert len(items) == 10 and set(types) <= CANVAS_TYPES and len(set(types)) == 6


def test_qti_numeric_range_comes_from_the_tolerance(variants):
    archive = zipfile.ZipFile(io.BytesIO(render(variants[:1], "qti")))
    root = ET.fromstring(archive.read(next(n for n in archive.namelist() if n != "imsmanifest.xml")))
    ns = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
    item = next(i for i in root.iter(f"{ns}item") if i.get("title") == "num")
    assert [e.text for e in item.iter(f"{ns}vargte")] == ["30.0"] and [e.text for e in item.iter(f"{ns}varlte")] == [
        "30.0"
    ]


def test_qti_text_is_html_with_mathml(variants):
    archive = zipfile.ZipFile(io.BytesIO(render(variants[:1], "qti")))
    root = ET.fromstring(archive.read(next(n for n in archive.namelist() if n != "imsmanifest.xml")))
    texts = [e.text for e in root.iter("{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}mattext")]
    assert any("<math" in t for t in texts) and any('<div lang="zh">' in t for t in texts)


def test_json_export_round_trips_the_variants(variants):
    document = json.loads(render(variants, "json"))
    assert document["format"] == "coursegen-quiz" and document["variants"] == json.loads(json.dumps(variants))


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml", "qti", "json"])
def test_exports_are_byte_identical_across_runs(loaded, fmt):
    assert render([make_variant(loaded, "zoe")], fmt) == render([make_variant(loaded, "zoe")], fmt)


def test_qti_zip_entries_have_a_fixed_timestamp(variants):
    archive = zipfile.ZipFile(io.BytesIO(render(variants, "qti")))
    assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


@pytest.fixture(scope="module")
def course_variants():
    from pathlib import Path

    from coursegen.quiz.load import course_quizzes

    root = Path(__file__).resolve().parents[2]
    return [make_variant(loaded, "practice") for loaded in course_quizzes(root)]


def test_course_quizzes_export_to_gift_that_parses_back(course_variants):
    questions = gift_questions(render(course_variants, "gift").decode())
    assert len(questions) == sum(len(v["questions"]) for v in course_variants)


def test_course_quizzes_export_to_moodle_xml_and_qti_that_parse(course_variants):
    root = ET.fromstring(render(course_variants, "moodle-xml"))
    assert len(root.findall("question")) == sum(len(v["questions"]) + 1 for v in course_variants)
    archive = zipfile.ZipFile(io.BytesIO(render(course_variants, "qti")))
    assert len(archive.namelist()) == 1 + len(course_variants)
    for name in archive.namelist():
        ET.fromstring(archive.read(name))
