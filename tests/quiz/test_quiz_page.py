"""The quiz page in headless Chromium, opened from file://: answering right and wrong shows the right feedback."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import shutil
    from pathlib import Path

    from coursegen.build import build_site

    fixture = Path(__file__).parent / "fixtures" / "course"
    root = tmp_path_factory.mktemp("quiz-site") / "course"
    shutil.copytree(fixture, root)
    build_site(root, root / "_site", progress=False)
    return root / "_site"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, built):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "request",
        lambda request: errors.append("network: " + request.url) if not request.url.startswith("file://") else None,
    )
    yield page
    page.close()
    assert errors == []


def open_quiz(page, built, lang="en"):
    page.goto((built / lang / "quiz-mini.html").as_uri())
    return page


def test_right_choice_shows_right_feedback_and_the_explanation(page, built):
    open_quiz(page, built)
    box = page.locator("#q-pick-one")
    box.get_by_label("The LM head").check()
    box.locator(".quiz-check").click()
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "right"
    assert "Right." in box.locator(".quiz-feedback").inner_text()
    assert box.locator(".quiz-explanation").is_visible() and box.locator(".quiz-explanation math").count() == 1


def test_wrong_choice_shows_that_options_feedback(page, built):
    open_quiz(page, built)
    box = page.locator("#q-pick-one")
    box.get_by_label("The position table").check()
    box.locator(".quiz-check").click()
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "wrong"
    assert "No: that adds positions." in box.locator(".quiz-feedback").inner_text()


def test_numeric_wrong_value_shows_targeted_feedback_then_right_value_passes(page, built):
    open_quiz(page, built)
    box = page.locator("#q-num")
    box.locator("input").fill("13")
    box.locator(".quiz-check").click()
    assert "You added V and D." in box.locator(".quiz-feedback").inner_text()
    box.locator("input").fill("30")
    box.locator(".quiz-check").click()
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "right"


def test_shape_answer_is_checked_in_the_browser(page, built):
    open_quiz(page, built)
    box = page.locator("#q-shp")
    box.locator("input").fill("(2, 5, 3)")
    box.locator(".quiz-check").click()
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "right"


def test_chinese_page_shows_chinese_feedback(page, built):
    open_quiz(page, built, "zh")
    box = page.locator("#q-word")
    box.locator("input").fill("dropout")
    box.locator(".quiz-check").click()
    text = box.locator(".quiz-feedback").inner_text()
    assert "不正确" in text and "Dropout 是正则化" in text


def test_check_all_reports_the_score(page, built):
    open_quiz(page, built)
    page.locator("#q-tf").get_by_label("False").check()
    page.locator(".quiz-check-all").click()
    assert page.locator(".quiz-score").inner_text() == "Score: 1 / 10"


def test_answer_key_of_every_question_is_accepted_by_the_page(page, built):
    """The browser's checking rules agree with the Python variant for every question type."""
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant

    (loaded,) = course_quizzes(built.parent)
    variant = make_variant(loaded, "practice")
    open_quiz(page, built)
    for item in variant["questions"]:
        box = page.locator(f"#q-{item['id']}")
        if item["type"] in ("single", "multiple", "true_false"):
            inputs = box.locator("input")
            for n, option in enumerate(item["options"]):
                if option["correct"]:
                    inputs.nth(n).check()
        elif item["type"] == "matching":
            for k, choice in enumerate(item["answer"]):
                box.locator("select").nth(k).select_option(str(choice))
        else:
            box.locator("input").fill(item["display"])
    page.locator(".quiz-check-all").click()
    verdicts = [
        page.locator(f"#q-{item['id']} .quiz-feedback").get_attribute("data-verdict") for item in variant["questions"]
    ]
    assert verdicts == ["right"] * len(variant["questions"])
    assert page.locator(".quiz-score").inner_text() == f"Score: {variant['max_score']} / {variant['max_score']}"
