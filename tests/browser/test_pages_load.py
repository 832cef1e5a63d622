"""Every page of the built site opens from file:// with no console error, no uncaught script
error and no request leaving the page (the site must work offline, from a zip or a USB stick).
Each page is opened once; the tests below check what was seen."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@dataclass
class Visit:
    problems: list[str]
    html_lang: str
    h1_count: int
    heading_levels: list[int]
    unnamed_images: list[str]
    ids: set[str]
    links: list[str]
    language_switch: str | None


HEADING_LEVELS = "() => Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).map(h => Number(h.tagName[1]))"


def unnamed_images(page) -> list[str]:
    """Figures and images whose accessible name (as Chromium computes it) is empty, and images
    with no name attribute at all."""
    everywhere = "img, svg[role=img], .figure svg"
    unlabelled = page.locator(everywhere).evaluate_all(
        "els => els.filter(e => !(e.getAttribute('alt') || e.getAttribute('aria-label') ||"
        " e.getAttribute('aria-labelledby') || e.querySelector('title')))"
        ".map(e => '#' + ((e.closest('[id]') || {}).id || '?') + ' <' + e.tagName.toLowerCase() + '>')"
    )
    # Images inside an aria-hidden element (the slides of a deck not on screen) are not in the
    # accessibility tree, so they have no computed name: only their attributes count.
    images = page.locator(f":is({everywhere}):not([aria-hidden=true] *)")
    named = page.get_by_role("img", name=re.compile(r"\S"))
    if images.count() == named.count():
        return unlabelled
    return unlabelled or [f"{images.count()} images, only {named.count()} with an accessible name"]


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
                heading_levels=page.evaluate(HEADING_LEVELS),
                unnamed_images=unnamed_images(page),
                ids=set(page.evaluate("Array.from(document.querySelectorAll('[id]'), e => e.id)")),
                links=page.evaluate("Array.from(document.querySelectorAll('a[href]'), a => a.href)"),
                language_switch=page.evaluate("(document.querySelector('a.lang-switch') || {}).href || null"),
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
    failures = {
        name: [p for p in visit.problems if not p.startswith("request leaving")] for name, visit in visits.items()
    }
    assert {name: found for name, found in failures.items() if found} == {}


def test_no_page_makes_a_request_leaving_file_url(visits):
    failures = {name: [p for p in visit.problems if p.startswith("request leaving")] for name, visit in visits.items()}
    assert {name: found for name, found in failures.items() if found} == {}


def test_every_page_declares_its_language_on_the_html_element(visits):
    wrong = {
        name: visit.html_lang
        for name, visit in visits.items()
        if visit.html_lang != ("zh-CN" if name.startswith("zh/") else "en")
    }
    assert wrong == {}


def test_every_page_has_exactly_one_h1(visits):
    assert {name: visit.h1_count for name, visit in visits.items() if visit.h1_count != 1} == {}


def test_headings_start_at_h1_and_never_skip_a_level(visits):
    skipped = {}
    for name, visit in visits.items():
        levels = visit.heading_levels
        jumps = [f"h{a} -> h{b}" for a, b in zip([0] + levels, levels) if b > a + 1]
        if jumps or (levels and levels[0] != 1):
            skipped[name] = jumps or [f"starts at h{levels[0]}"]
    assert skipped == {}


def test_every_figure_and_image_has_an_accessible_name(visits):
    assert {name: visit.unnamed_images for name, visit in visits.items() if visit.unnamed_images} == {}


def test_every_link_within_the_site_reaches_an_existing_page_and_anchor(visits, site):
    broken = []
    anchors_checked = 0
    for name, visit in visits.items():
        for href in visit.links:
            url = urlparse(href)
            if url.scheme != "file":
                continue
            target = Path(url2pathname(url.path))
            relative = target.relative_to(site).as_posix() if site in target.parents else None
            if not target.is_file():
                broken.append(f"{name}: {href} (no such file)")
            elif url.fragment.startswith("/") and "/slides/" in url.path:
                continue  # a slide deck's own route (reveal.js: `#/<slide id>`), not an element id
            elif url.fragment and relative in visits:
                anchors_checked += 1
                if unquote(url.fragment) not in visits[relative].ids:
                    broken.append(f"{name}: {href} (no element with id {unquote(url.fragment)!r})")
    assert broken == [], "\n".join(broken)
    assert anchors_checked > 0, "no link with an anchor was found: the walk saw no links?"


def test_every_language_page_switches_to_the_same_page_in_the_other_language(visits, site):
    wrong = {}
    for name, visit in visits.items():
        lang, _, page_name = name.partition("/")
        if lang not in ("en", "zh") or "/" in page_name:
            continue
        expected = (site / ("zh" if lang == "en" else "en") / page_name).as_uri()
        if visit.language_switch != expected:
            wrong[name] = visit.language_switch
    assert wrong == {}
