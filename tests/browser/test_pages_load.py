"""Every page of the built site opens from file:// with no console error, no uncaught script
error and no request leaving the page (the site must work offline, from a zip or a USB stick).
Each page is opened once; the tests below check what was seen."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@dataclass
class Visit:
    problems: list[str]
    html_lang: str
    h1_count: int


@pytest.fixture(scope="module")
def visits(make_page, site) -> dict[str, Visit]:
    """Every .html file of the site, opened from file://: relative path -> what was seen."""
    page = make_page()
    seen = {}
    try:
        for path in sorted(site.rglob("*.html")):
            page.problems.clear()
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_timeout(30)  # let scripts that run after load report their errors
            seen[path.relative_to(site).as_posix()] = Visit(
                problems=page.problems.all(),
                html_lang=page.evaluate("document.documentElement.lang"),
                h1_count=page.locator("h1").count(),
            )
    finally:
        page.context.close()
    return seen


def test_the_walk_covers_the_documented_pages_in_both_languages(visits, course):
    expected = {"index.html"}
    for lang in ("en", "zh"):
        expected |= {f"{lang}/{name}.html" for name in ("index", "glossary", "exercises", "search")}
        expected |= {f"{lang}/{lesson.id}.html" for lesson in course.lessons}
        expected |= {f"{lang}/quiz-{lesson.id}.html" for lesson in course.lessons if lesson.quiz}
    assert expected <= set(visits)


def test_every_page_loads_from_file_url_without_console_or_page_errors(visits):
    failures = {name: [p for p in visit.problems if not p.startswith("request leaving")]
                for name, visit in visits.items()}
    assert {name: found for name, found in failures.items() if found} == {}


def test_no_page_makes_a_request_leaving_file_url(visits):
    failures = {name: [p for p in visit.problems if p.startswith("request leaving")]
                for name, visit in visits.items()}
    assert {name: found for name, found in failures.items() if found} == {}


def test_every_page_declares_its_language_on_the_html_element(visits):
    wrong = {name: visit.html_lang for name, visit in visits.items()
             if visit.html_lang != ("zh-CN" if name.startswith("zh/") else "en")}
    assert wrong == {}


def test_every_page_has_exactly_one_h1(visits):
    assert {name: visit.h1_count for name, visit in visits.items() if visit.h1_count != 1} == {}
