"""The language link on a lesson page lands on the same lesson in the other language."""

from __future__ import annotations

import pytest
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

OTHER = {"en": ("zh", "zh-CN"), "zh": ("en", "en")}


@pytest.mark.parametrize("start", ["en", "zh"])
def test_language_switch_on_each_lesson_lands_on_the_same_lesson_in_the_other_language(open_page, site, course, start):
    target, html_lang = OTHER[start]
    for lesson in nonempty(course.lessons):
        page = open_page(f"{start}/{lesson.id}.html")
        with page.expect_navigation(wait_until="load"):
            page.locator("a.lang-switch").click()
        assert page.url == (site / target / f"{lesson.id}.html").as_uri()
        assert page.evaluate("document.documentElement.lang") == html_lang
        assert page.locator("main h1").inner_text().strip() == lesson.title.get(target).strip()
    assert page.problems.all() == []


def test_language_switch_is_keyboard_reachable_and_names_the_target_language(open_page):
    page = open_page("en/index.html")
    link = page.locator("a.lang-switch")
    assert link.get_attribute("hreflang") == "zh-CN"
    link.focus()
    with page.expect_navigation(wait_until="load"):
        page.keyboard.press("Enter")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.url.endswith("/zh/index.html")
