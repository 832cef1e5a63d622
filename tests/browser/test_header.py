"""The site header: brand, navigation and search box share one row at 1280 px in both languages,
and at narrower widths they wrap onto more rows without overlapping, leaving the screen or
making the page scroll sideways."""

from __future__ import annotations

import pytest
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

HEADER = """() => {
  const box = el => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  const header = document.querySelector('.site-header');
  return {
    parts: Array.from(header.children).map(el => ({name: el.className, ...box(el)})),
    links: Array.from(header.querySelectorAll('.site-nav a')).map(a => ({name: a.textContent.trim(), ...box(a)})),
    search: box(header.querySelector('.site-search input')),
    viewport: document.documentElement.clientWidth,
    pageWidth: document.documentElement.scrollWidth,
  };
}"""


def header_pages(course, lang: str) -> list[str]:
    lesson = course.lessons[0].id
    with_quiz = next(l.id for l in course.lessons if l.quiz)
    return [
        f"{lang}/index.html",
        f"{lang}/{lesson}.html",
        f"{lang}/quiz-{with_quiz}.html",
        f"{lang}/search.html",
        f"{lang}/glossary.html",
        f"{lang}/exercises.html",
    ]


def overlap(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"] - 0.5
        and b["left"] < a["right"] - 0.5
        and a["top"] < b["bottom"] - 0.5
        and b["top"] < a["bottom"] - 0.5
    )


def layout_problems(seen: dict) -> list[str]:
    problems = []
    if seen["pageWidth"] > seen["viewport"]:
        problems.append(f"the page scrolls sideways ({seen['pageWidth']} > {seen['viewport']} px)")
    boxes = seen["parts"] + seen["links"]
    for item in boxes:
        if item["left"] < 0 or item["right"] > seen["viewport"] + 0.5:
            problems.append(f"{item['name']!r} leaves the screen ({item['left']:.0f}-{item['right']:.0f})")
    for group in (seen["parts"], seen["links"]):
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if overlap(a, b):
                    problems.append(f"{a['name']!r} overlaps {b['name']!r}")
    if seen["search"]["width"] < 150:
        problems.append(f"the search box is only {seen['search']['width']:.0f} px wide")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_header_is_one_row_at_1280_px(browser, site, course, lang):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        for relative in nonempty(header_pages(course, lang)):
            page.goto((site / relative).as_uri())
            seen = page.evaluate(HEADER)
            parts = seen["parts"]
            assert len(parts) == 3, parts
            # one row: every part spans the vertical middle of every other part
            for a in parts:
                for b in parts:
                    middle = (b["top"] + b["bottom"]) / 2
                    assert a["top"] <= middle <= a["bottom"], (
                        f"{relative}: {a['name']} and {b['name']} are on different rows: {parts}"
                    )
            assert layout_problems(seen) == [], relative
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_header_wraps_without_overlap_or_sideways_scrolling_on_narrower_screens(browser, site, course, lang):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = []
    try:
        for relative in header_pages(course, lang)[:2]:
            page.goto((site / relative).as_uri())
            for width in (1180, 1024, 900, 800, 700, 600, 480, 390, 320):
                page.set_viewport_size({"width": width, "height": 800})
                problems += [f"{relative} at {width} px: {p}" for p in layout_problems(page.evaluate(HEADER))]
    finally:
        context.close()
    assert problems == [], "\n".join(problems)
