"""Adding a question kind is one module: tests/quiz/toy_kind.py (an `interval` question), registered
here for the test only, is read from a quiz file, made into a variant, graded, tallied by the class
report, shown by `quiz show`, rendered on the quiz page (through its own partial), on a slide and in
the GIFT, Moodle XML and QTI exports, with no other edit of the engine."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import jinja2
import pytest

from coursegen.quiz import kinds

from tests.quiz import toy_kind

QUIZ = """id: mini
lesson: mini
questions:
  - id: pick-one
    type: single
    objectives: [1]
    text: {en: "Which matrix maps $h$ to logits?", zh: "哪个矩阵把 $h$ 变成 logits？"}
    explanation: {en: "The LM head.", zh: "语言模型头。"}
    options:
      - {text: {en: The LM head, zh: 语言模型头}, correct: true, feedback: {en: Right., zh: 对。}}
      - {text: {en: The position table, zh: 位置表}, feedback: {en: No., zh: 不对。}}
  - id: fits
    type: interval
    objectives: [2]
    text: {en: "A context of 512 tokens: give a sequence length that fits, above 500.", zh: "上下文 512：给出一个大于 500 且放得下的长度。"}
    explanation: {en: "501 to 512 fit.", zh: "501 到 512 都可以。"}
    low: 501
    high: 512
    feedback: {en: "It fits.", zh: "放得下。"}
"""


@pytest.fixture
def toy(course: Path):
    """The course with a quiz that asks one single-choice and one interval question, while the toy
    kind is registered."""
    (course / "content" / "quizzes" / "mini.yaml").write_text(QUIZ, encoding="utf-8")
    with kinds.registered(toy_kind.KIND):
        yield course


def _variant(course: Path, student: str = "practice") -> tuple[object, dict]:
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant

    (loaded,) = course_quizzes(course)
    return loaded, make_variant(loaded, student)


def _toy_item(variant: dict) -> dict:
    (item,) = [q for q in variant["questions"] if q["type"] == "interval"]
    return item


def test_the_toy_kind_is_known_only_while_registered(course: Path):
    from coursegen.errors import ContentErrors
    from coursegen.quiz.load import course_quizzes

    (course / "content" / "quizzes" / "mini.yaml").write_text(QUIZ, encoding="utf-8")
    assert "interval" not in kinds.names()
    with pytest.raises(ContentErrors) as unknown:
        course_quizzes(course)
    assert "'type' must be one of single, multiple, true_false, numeric, shape, short, matching; got 'interval'" in str(
        unknown.value.errors[0]
    )
    with kinds.registered(toy_kind.KIND):
        assert kinds.names()[-1] == "interval"
        (loaded,) = course_quizzes(course)
        assert [q.type for q in loaded.quiz.questions] == ["single", "interval"]
    assert "interval" not in kinds.names()


def test_a_toy_item_is_made_graded_tallied_and_shown(toy: Path):
    from coursegen.quiz.grade import check
    from coursegen.quiz.show import render_text
    from coursegen.report.quizdata import _classify

    _, variant = _variant(toy)
    item = _toy_item(variant)
    assert {k: item[k] for k in ("low", "high", "display")} == {"low": 501, "high": 512, "display": "501..512"}
    assert check(item, " 507 ").score == 1.0 and check(item, " 507 ").feedback == [{"en": "It fits.", "zh": "放得下。"}]
    assert check(item, "513").score == 0.0
    assert check(item, "five hundred").feedback[0]["en"].startswith("This answer could not be read")
    assert [(key, choice.correct) for key, choice in _classify(item, "510")] == [("inside", True)]
    assert [(key, choice.correct) for key, choice in _classify(item, "9")] == [("outside", False)]
    shown = render_text(variant, "en", answers=True)
    assert "(Answer with a whole number.)\n   => 501..512" in shown


def test_a_toy_question_renders_on_the_page_through_its_own_partial(toy: Path, tmp_path: Path):
    from coursegen.loader import load_course
    from coursegen.pages import make_env
    from coursegen.quiz.site import write_lesson_quiz_pages

    loaded_quiz, variant = _variant(toy)
    course = load_course(toy)
    env = make_env(toy)
    env.loader = jinja2.ChoiceLoader([env.loader, jinja2.DictLoader({toy_kind.PARTIAL_NAME: toy_kind.PARTIAL})])
    write_lesson_quiz_pages(course, loaded_quiz.lesson, variant, tmp_path, env)
    page = (tmp_path / "en" / "quiz-mini.html").read_text(encoding="utf-8")
    assert '<fieldset class="quiz-question quiz-interval" id="q-fits"' in page
    assert '<p class="quiz-answer quiz-interval">A whole number between 501 – 512' in page
    assert 'inputmode="numeric"' in page
    assert '<ul class="quiz-options">' in page  # the single-choice question keeps its own partial
    assert '"high":512,"id":"fits","low":501' in page  # the answer key quiz.js reads
    assert "介于 501 – 512" in (tmp_path / "zh" / "quiz-mini.html").read_text(encoding="utf-8")


def test_a_toy_question_renders_on_a_slide(toy: Path):
    from coursegen.loader import load_course
    from coursegen.pages import make_env
    from coursegen.slides.deck import deck_slides

    loaded_quiz, variant = _variant(toy, "in-class")
    course = load_course(toy)
    slides = deck_slides(course, loaded_quiz.lesson, "en", make_env(toy), variant)
    (slide,) = [s for s in slides if s.id == "question-fits"]
    body = "".join(slide.body)
    assert '<p class="interval">A whole number between 501 – 512</p>' in body
    assert "<strong>Answer: 501 … 512</strong>" in body
    assert "501 to 512 fit." in body  # the explanation, added for every kind


def test_a_toy_question_renders_in_the_three_lms_exports(toy: Path):
    from coursegen.quiz.exports import render

    _, variant = _variant(toy)
    gift = render([variant], "gift").decode()
    assert "::mini/fits::[html]" in gift and "#=501..512#" in gift

    moodle = ET.fromstring(render([variant], "moodle-xml").decode())
    (question,) = [q for q in moodle.iter("question") if q.findtext("name/text") == "mini/fits"]
    assert question.get("type") == "numerical"
    (answer,) = question.findall("answer")
    assert (answer.get("fraction"), answer.findtext("text"), answer.findtext("tolerance")) == ("100", "506.5", "5.5")

    with zipfile.ZipFile(io.BytesIO(render([variant], "qti"))) as archive:
        assessment = archive.read("gmini/gmini.xml").decode()
    ns = {"q": "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"}
    items = ET.fromstring(assessment).findall(".//q:item", ns)
    (item,) = [i for i in items if i.get("title") == "fits"]
    fields = {
        f.findtext("q:fieldlabel", namespaces=ns): f.findtext("q:fieldentry", namespaces=ns)
        for f in item.iter(f"{{{ns['q']}}}qtimetadatafield")
    }
    assert fields["question_type"] == "numerical_question"
    assert [e.text for e in item.iter(f"{{{ns['q']}}}vargte")] == ["501"]
    assert [e.text for e in item.iter(f"{{{ns['q']}}}varlte")] == ["512"]
