"""Blocks wider than the screen (code, outputs, formulas, tables) scroll inside their own box. Each
such box can be reached with the keyboard and has a name, on every page, on a phone and on a
desktop; boxes that fit are no tab stops; the arrow keys scroll a focused box."""

from __future__ import annotations

import pytest
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Every element that scrolls (overflow auto or scroll, content larger than its box), found by
# Chromium's layout, whatever its tag or class: is it focusable, or does it hold something that is?
SCROLLERS = r"""() => {
  const focusable = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    // inert content (a deck's slides that are not shown) takes no focus and is not read out
    if (el.closest('[inert]')) continue;
    const style = getComputedStyle(el);
    const x = /auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    const y = /auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
    if (!x && !y) continue;
    out.push({tag: el.tagName.toLowerCase(), cls: String(el.className.baseVal ?? el.className),
              focusable: el.matches(focusable) && el.tabIndex >= 0, holdsFocusable: !!el.querySelector(focusable),
              name: el.getAttribute('aria-label') || '', role: el.getAttribute('role') || '',
              html: el.outerHTML.slice(0, 120)});
  }
  return out;
}"""

REGIONS = """() => Array.from(document.querySelectorAll('[data-region]')).map(el => ({
  fits: el.scrollWidth <= el.clientWidth + 1, tabindex: el.getAttribute('tabindex'), kind: el.dataset.region}))"""


def pages(site):
    return sorted(site.rglob("*.html"))


def unreachable(scrollers: list[dict]) -> list[dict]:
    return [
        s for s in scrollers if not s["holdsFocusable"] and not (s["focusable"] and s["name"].strip() and s["role"])
    ]


def test_every_scrolling_box_on_a_phone_is_focusable_and_named(browser, site):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    problems, scrolling = [], 0
    try:
        for path in pages(site):
            page.goto(path.as_uri())
            found = page.evaluate(SCROLLERS)
            scrolling += len(found)
            problems += [f"{path.relative_to(site)}: {s['html']}" for s in unreachable(found)]
    finally:
        context.close()
    assert scrolling > 0, "no box scrolls on a phone: the test would prove nothing"
    assert problems == [], "\n".join(problems)


def test_on_a_desktop_boxes_that_fit_are_no_tab_stops_and_the_others_are(browser, site):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    problems, fitting = [], 0
    try:
        for path in pages(site):
            page.goto(path.as_uri())
            problems += [f"{path.relative_to(site)}: {s['html']}" for s in unreachable(page.evaluate(SCROLLERS))]
            for region in page.evaluate(REGIONS):
                fitting += region["fits"]
                if region["fits"] and region["tabindex"] is not None:
                    problems.append(f"{path.relative_to(site)}: a {region['kind']} that fits is a tab stop")
    finally:
        context.close()
    assert fitting > 0
    assert problems == [], "\n".join(problems)


def test_a_box_that_starts_to_overflow_when_the_window_narrows_becomes_a_tab_stop(browser, site):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        for path in pages(site):
            page.set_viewport_size(DESKTOP)
            page.goto(path.as_uri())
            before = page.evaluate(REGIONS)
            page.set_viewport_size(PHONE)
            page.wait_for_function(
                f"""() => ({REGIONS})().every(r => r.fits === (r.tabindex === null))""", timeout=5000
            )
            after = page.evaluate(REGIONS)
            if any(b["fits"] and not a["fits"] for b, a in zip(before, after)):
                return
        pytest.fail("no block of the course fits at 1280 px and overflows at 390 px")
    finally:
        context.close()


def test_arrow_keys_scroll_a_focused_box(browser, site):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        for path in pages(site):
            page.goto(path.as_uri())
            box = page.locator('[data-region][tabindex="0"]').first
            if not box.count():
                continue
            box.focus()
            for _ in range(5):
                page.keyboard.press("ArrowRight")
            page.wait_for_function("document.activeElement.scrollLeft > 0", timeout=5000)
            return
        pytest.fail("no block scrolls on a phone")
    finally:
        context.close()


def test_an_inline_formula_wider_than_the_phone_gets_a_tab_stop_and_a_name(browser, site):
    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    try:
        for path in nonempty(pages(site)):
            page.goto(path.as_uri())
            wide = page.locator(".math.inline:not([data-region])[tabindex='0']")
            if wide.count():
                lang = page.evaluate("document.documentElement.lang")
                assert wide.first.get_attribute("role") == "group"
                assert wide.first.get_attribute("aria-label") == {"en": "Formula", "zh-CN": "公式"}[lang]
                return
        pytest.fail("no inline formula of the course is wider than 320 px (the test needs one)")
    finally:
        context.close()
