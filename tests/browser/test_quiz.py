"""A single-choice question of the real course, answered right and then wrong in the browser,
shows "right" then "not right" with that option's own feedback. The question and its answer key
are read from content/quizzes/*.yaml, not from the page."""

from __future__ import annotations

import re

import pytest
import yaml

pytestmark = [pytest.mark.slow, pytest.mark.browser]

MARKUP = re.compile(r"[`$*_\[\]<>\\]")  # options with Markdown or math render differently from their source
VERDICT = {
    "en": (re.compile(r"^(right|correct)\b", re.I), re.compile(r"\b(not right|wrong|incorrect)\b", re.I)),
    "zh": (re.compile(r"^正确"), re.compile(r"不正确|错误|不对")),
}


def plain_single_choice_question(course):
    """(lesson id, question) of the first single-choice question whose options are plain text."""
    for lesson in course.lessons:
        if not lesson.quiz:
            continue
        if lesson.id not in course.quiz_files:
            continue
        quiz = yaml.safe_load(course.quiz_files[lesson.id].read_text(encoding="utf-8"))
        for question in quiz.get("questions", []):
            options = question.get("options") or []
            if (
                question.get("type") == "single"
                and any(o.get("correct") for o in options)
                and all(not MARKUP.search(o["text"][lang]) for o in options for lang in ("en", "zh"))
            ):
                return lesson.id, question
    pytest.fail("no quiz of the course has a single-choice question with plain-text options")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_single_choice_answered_right_then_wrong_shows_each_verdict_and_feedback(open_page, course, lang):
    lesson_id, question = plain_single_choice_question(course)
    right = next(o for o in question["options"] if o.get("correct"))
    wrong = next(o for o in question["options"] if not o.get("correct"))
    says_right, says_wrong = VERDICT[lang]

    page = open_page(f"{lang}/quiz-{lesson_id}.html")
    box = page.locator(f"#q-{question['id']}")
    feedback = box.locator(".quiz-feedback")
    assert feedback.is_hidden() and box.locator(".quiz-explanation").is_hidden()

    box.get_by_label(right["text"][lang], exact=True).check()
    box.locator(".quiz-check").click()
    assert feedback.get_attribute("data-verdict") == "right"
    right_text = feedback.inner_text().strip()
    assert says_right.search(right_text) and not says_wrong.search(right_text), right_text
    assert box.locator(".quiz-explanation").is_visible()

    box.get_by_label(wrong["text"][lang], exact=True).check()
    box.locator(".quiz-check").click()
    assert feedback.get_attribute("data-verdict") == "wrong"
    wrong_text = feedback.inner_text().strip()
    assert says_wrong.search(wrong_text), wrong_text
    assert wrong["feedback"][lang].strip() in wrong_text
    assert wrong_text != right_text
    assert page.problems.all() == []


def test_checking_an_unanswered_question_asks_for_an_answer_without_a_verdict(open_page, course):
    lesson_id, question = plain_single_choice_question(course)
    page = open_page(f"en/quiz-{lesson_id}.html")
    box = page.locator(f"#q-{question['id']}")
    box.locator(".quiz-check").click()
    feedback = box.locator(".quiz-feedback")
    assert feedback.is_visible() and feedback.inner_text().strip()
    assert feedback.get_attribute("data-verdict") is None
    assert box.locator(".quiz-explanation").is_hidden()


def test_clearing_a_typed_answer_and_checking_again_drops_the_old_verdict(open_page, course):
    lesson_id = next(lesson.id for lesson in course.lessons if lesson.quiz)
    page = open_page(f"en/quiz-{lesson_id}.html")
    box = page.locator("fieldset.quiz-question:has(input.quiz-input)").first
    box.locator("input.quiz-input").fill("not an answer")
    box.locator(".quiz-check").click()
    feedback = box.locator(".quiz-feedback")
    assert feedback.get_attribute("data-verdict") == "wrong"
    box.locator("input.quiz-input").fill("")
    box.locator(".quiz-check").click()
    assert feedback.get_attribute("data-verdict") is None and feedback.inner_text().strip()
