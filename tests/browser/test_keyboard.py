"""Keyboard use: Tab first reaches the skip link, which jumps to the content, and every element
reached by Tab shows a visible focus outline (in both themes)."""

from __future__ import annotations

import pytest

from .colours import COLOUR_HELPERS, contrast

pytestmark = [pytest.mark.slow, pytest.mark.browser]

FOCUSED = (
    "() => {"
    + COLOUR_HELPERS
    + """
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {tag: el.tagName.toLowerCase(), id: el.id, cls: el.className, text: (el.textContent || '').trim().slice(0, 40),
          inMain: !!el.closest('main'), outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth),
          outlineColor: parse(style.outlineColor), boxShadow: style.boxShadow,
          background: background(el.parentElement || el),
          top: box.top, bottom: box.bottom, width: box.width, height: box.height};
}"""
)


def has_visible_focus(focused: dict) -> bool:
    """An outline at least 1 px wide whose colour stands out from what is behind it (3:1, WCAG 1.4.11)."""
    colour = focused["outlineColor"]
    return (
        focused["outlineStyle"] != "none"
        and focused["outlineWidth"] >= 1
        and colour is not None
        and colour["a"] > 0.5
        and contrast(colour, focused["background"]) >= 3.0
    )


def test_first_tab_reaches_the_skip_link_which_is_then_visible(open_page, course):
    page = open_page(f"en/{course.lessons[0].id}.html")
    page.keyboard.press("Tab")
    focused = page.evaluate(FOCUSED)
    assert "skip-link" in focused["cls"], focused
    assert focused["top"] >= 0 and focused["width"] > 0 and focused["height"] > 0, "skip link is focused but off screen"
    assert has_visible_focus(focused), focused


def test_the_skip_link_moves_focus_to_the_main_content(open_page, course):
    page = open_page(f"en/{course.lessons[0].id}.html")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'main'", timeout=5000)  # fragment navigation is async
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED)["inMain"], "Tab after the skip link should stay in the main content"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["lesson", "quiz", "search"])
def test_every_tab_stop_shows_a_visible_focus_outline(make_page, site, course, scheme, name):
    lesson = course.lessons[0].id
    relative = {"lesson": f"en/{lesson}.html", "quiz": f"en/quiz-{lesson}.html", "search": "en/search.html"}[name]
    page = make_page(scheme)
    try:
        page.goto((site / relative).as_uri())
        invisible = []
        for _ in range(25):
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUSED)
            if focused["tag"] == "body":
                break
            if not has_visible_focus(focused):
                invisible.append(focused)
        assert invisible == []
    finally:
        page.context.close()
