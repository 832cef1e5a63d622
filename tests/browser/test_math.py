"""Formulas are MathML that Chromium lays out natively: every <math> on a lesson page has a box."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SIZES = """() => Array.from(document.querySelectorAll('math')).map(m => {
  const box = m.getBoundingClientRect();
  return {display: m.getAttribute('display') || 'inline', width: box.width, height: box.height,
          source: m.textContent.slice(0, 60)};
})"""


def test_a_lesson_page_renders_inline_and_block_math_with_non_zero_size(open_page, course):
    page = open_page(f"en/{course.lessons[-1].id}.html")
    sizes = page.evaluate(SIZES)
    assert {s["display"] for s in sizes} >= {"inline", "block"}
    first = page.locator("math").first.bounding_box()
    assert first["width"] > 0 and first["height"] > 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_formula_of_every_lesson_has_a_non_zero_box(open_page, course, lang):
    empty = {}
    for lesson in course.lessons:
        page = open_page(f"{lang}/{lesson.id}.html")
        zero = [s for s in page.evaluate(SIZES) if not (s["width"] > 0 and s["height"] > 0)]
        if zero:
            empty[lesson.id] = zero
    assert empty == {}


def test_math_is_laid_out_as_mathml_not_as_plain_inline_text(open_page, course):
    """A fraction is taller than a line of text only when MathML layout is on (MathML Core)."""
    page = open_page(f"en/{course.lessons[-1].id}.html")
    heights = page.evaluate("""() => {
      const frac = document.querySelector('math mfrac');
      const line = parseFloat(getComputedStyle(document.body).fontSize);
      return frac ? {frac: frac.getBoundingClientRect().height, line: line,
                     display: getComputedStyle(frac).display} : null;
    }""")
    assert heights is not None, "no fraction in this lesson (the test page must have one)"
    assert "math" in heights["display"].split()  # "block math": laid out by the MathML engine
    assert heights["frac"] > heights["line"]
