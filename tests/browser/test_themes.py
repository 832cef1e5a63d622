"""Light and dark themes: screenshots of the index, a lesson and a quiz saved under
_artifacts/screenshots/, and WCAG AA contrast of body text, links and headings as Chromium
computes them (computed colour against the first opaque background behind the text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .colours import COLOUR_HELPERS, contrast, luminance
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCHEMES = ["light", "dark"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "_artifacts" / "screenshots"

# A JavaScript function of a list of elements: those of them that are visible and have text of their
# own, each with its colour, effective background, size, weight and kind.
TEXT_COLOURS_OF = (
    "elements => {"
    + COLOUR_HELPERS
    + r"""
  function kind(el) {
    if (el.closest('h1, h2, h3, h4, h5, h6')) return 'heading';
    if (el.closest('a')) return 'link';
    return 'text';
  }
  const opacities = new Map();
  function opacity(el) {
    if (!el) return 1;
    if (!opacities.has(el)) opacities.set(el, parseFloat(getComputedStyle(el).opacity) * opacity(el.parentElement));
    return opacities.get(el);
  }
  const out = [];
  for (const el of elements) {
    if (el.closest('svg, math, script, style, .visually-hidden, [hidden]')) continue;
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility !== 'visible' || style.display === 'none' || box.width === 0 || box.height === 0) continue;
    if (el.closest('.skip-link') && box.bottom < 0) continue;  // off screen until focused
    let colour = parse(style.color);
    if (colour) colour.a *= opacity(el);  // faded text (opacity < 1) blends into its background
    const back = background(el);
    out.push({kind: kind(el), tag: el.tagName.toLowerCase(), cls: String(el.className || ''),
              text: el.textContent.trim().slice(0, 40), size: parseFloat(style.fontSize),
              weight: parseInt(style.fontWeight, 10), colour: colour ? over(colour, back) : null, background: back,
              raw: style.color});
  }
  return out;
}"""
)
# Every visible element of the page with its own text.
TEXT_COLOURS = f"() => ({TEXT_COLOURS_OF})(document.querySelectorAll('body *'))"


BODY_COLOURS = (
    "() => {"
    + COLOUR_HELPERS
    + """
  const style = getComputedStyle(document.body);
  return {colour: parse(style.color), background: parse(style.backgroundColor)};
}"""
)


def required_ratio(item: dict) -> float:
    """WCAG AA: 4.5:1, or 3:1 for large text (>= 24 px, or >= 18.66 px bold)."""
    large = item["size"] >= 24 or (item["size"] >= 18.66 and item["weight"] >= 700)
    return 3.0 if large else 4.5


def answer_some_questions(page) -> None:
    """Pick the first option of every choice question and check all: right, wrong and empty feedback show."""
    for box in page.locator(".quiz-question").all():
        options = box.locator(".quiz-options input")
        if options.count():
            options.first.check()
    page.locator(".quiz-check-all").click()
    page.locator(".quiz-feedback").first.wait_for()


def open_in(make_page, site, relative: str, scheme: str):
    page = make_page(scheme)
    page.goto((site / relative).as_uri())
    return page


def representative_pages(course) -> dict[str, str]:
    lesson = course.lessons[0].id
    with_quiz = next(l.id for l in course.lessons if l.quiz)
    return {
        "index": "index.html",
        "lesson": f"en/{lesson}.html",
        "lesson-zh": f"zh/{lesson}.html",
        "quiz": f"en/quiz-{with_quiz}.html",
        "glossary": "en/glossary.html",
        "exercises": "en/exercises.html",
        "search": "en/search.html",
    }


@pytest.mark.parametrize("scheme", SCHEMES)
def test_text_links_and_headings_meet_wcag_aa_contrast(make_page, site, course, scheme):
    failures = []
    checked = {"text": 0, "link": 0, "heading": 0}
    page = make_page(scheme)
    try:
        for name, relative in nonempty(representative_pages(course).items()):
            page.goto((site / relative).as_uri())
            if name == "search":
                page.locator("#search-q").fill("RoPE")
                page.locator("#search-results li").first.wait_for()
            if name == "quiz":
                answer_some_questions(page)
            for item in nonempty(page.evaluate(TEXT_COLOURS)):
                assert item["colour"] is not None, f"{relative}: unreadable colour {item['raw']!r}"
                checked[item["kind"]] += 1
                ratio = contrast(item["colour"], item["background"])
                if ratio < required_ratio(item):
                    failures.append(
                        f"{relative} <{item['tag']} class={item['cls']!r}> {item['text']!r}: "
                        f"{ratio:.2f} < {required_ratio(item)} ({item['kind']})"
                    )
    finally:
        page.context.close()
    assert min(checked.values()) > 0, checked
    assert failures == [], "\n".join(sorted(set(failures)))


def test_dark_theme_has_a_dark_background_and_light_text(make_page, site, course):
    body = {}
    for scheme in SCHEMES:
        page = open_in(make_page, site, f"en/{course.lessons[0].id}.html", scheme)
        try:
            body[scheme] = page.evaluate(BODY_COLOURS)
        finally:
            page.context.close()
    assert luminance(body["light"]["background"]) > 0.8 and luminance(body["light"]["colour"]) < 0.1
    assert luminance(body["dark"]["background"]) < 0.1 and luminance(body["dark"]["colour"]) > 0.6


@pytest.mark.parametrize("scheme", SCHEMES)
def test_screenshots_of_index_lesson_and_quiz_are_saved(make_page, site, course, scheme):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with_figure = next(
        (l.id for l in course.lessons if 'class="figure' in (site / "en" / f"{l.id}.html").read_text(encoding="utf-8")),
        course.lessons[0].id,
    )
    with_quiz = next(l.id for l in course.lessons if l.quiz)
    shots = {
        "index": ("index.html", None),
        "lesson": (f"en/{with_figure}.html", None),
        "lesson-figure": (f"en/{with_figure}.html", ".figure"),
        "lesson-zh": (f"zh/{with_figure}.html", None),
        "quiz": (f"en/quiz-{with_quiz}.html", None),
        "quiz-checked": (f"en/quiz-{with_quiz}.html", ".quiz-feedback"),
    }
    for name, (relative, scroll_to) in nonempty(shots.items()):
        page = open_in(make_page, site, relative, scheme)
        try:
            if name == "quiz-checked":
                answer_some_questions(page)
            if scroll_to:
                page.locator(scroll_to).first.scroll_into_view_if_needed()
            target = SCREENSHOTS / f"{name}-{scheme}.png"
            page.screenshot(path=str(target))
            assert target.stat().st_size > 10_000, f"{target} looks empty"
            assert page.problems.all() == []
        finally:
            page.context.close()
