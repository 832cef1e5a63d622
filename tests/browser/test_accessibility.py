"""axe-core over the whole built course: every page, both languages, light and dark, on a desktop
(1280x900) and on a phone (390x844), plus the states scripts create (search results shown, every
quiz checked). Any violation of WCAG 2.0/2.1 A and AA or of the best practices fails, except the
rules listed in axe.ALLOWED with their reason.

One browser context per (theme, screen), one page reused for every file; about 30 s per
combination on an idle machine.
"""

from __future__ import annotations

import warnings

import pytest

from . import axe as axe_rules
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCREENS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
SEARCHES = {"en": "RoPE", "zh": "位置编码"}


@pytest.fixture(scope="module")
def axe():
    path, origin = axe_rules.axe_source()
    if path != axe_rules.NPM_AXE:
        warnings.warn(f"axe-core {axe_rules.axe_version(path)} from {origin}", stacklevel=1)
    return axe_rules.make_axe()


def answer_everything(page) -> None:
    """Tick the first option, choose the first match and type "1" everywhere, then check all."""
    page.evaluate("""() => {
      document.querySelectorAll('.quiz-question').forEach(box => {
        const option = box.querySelector('.quiz-options input');
        if (option) option.checked = true;
        box.querySelectorAll('select').forEach(s => { s.selectedIndex = 1; });
        const text = box.querySelector('input.quiz-input');
        if (text) text.value = '1';
      });
    }""")
    page.locator(".quiz-check-all").click()
    page.locator(".quiz-score").filter(has_text="/").wait_for()


def states(site):
    """(name, url, action) for every page as loaded, then the states that scripts produce."""
    pages = sorted(site.rglob("*.html"))
    for path in pages:
        yield path.relative_to(site).as_posix(), path.as_uri(), None
    for lang, query in SEARCHES.items():

        def show_results(page, query=query):
            page.locator("#search-q").fill(query)
            page.locator("#search-results li").first.wait_for()

        yield f"{lang}/search.html with results for {query!r}", (site / lang / "search.html").as_uri(), show_results
    for path in pages:
        if path.name.startswith("quiz-"):
            yield f"{path.relative_to(site).as_posix()} after 'check all'", path.as_uri(), answer_everything


@pytest.mark.xdist_alone  # minutes per setting: the four settings run side by side under pytest-xdist
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_on_any_page(browser, site, axe, scheme, screen):
    context = browser.new_context(viewport=SCREENS[screen], color_scheme=scheme)
    page = context.new_page()
    failures, audited = [], 0
    try:
        for name, url, action in nonempty(states(site)):
            page.goto(url)
            if action:
                action(page)
            result = axe_rules.audit(axe, page)
            assert len(result["passes"]) > 10, f"{name}: axe ran almost no rule: {result['passes']}"
            failures += axe_rules.describe(f"{name} [{scheme}, {screen}]", result)
            audited += 1
    finally:
        context.close()
    assert audited >= 2 * 5 + 1, f"only {audited} pages audited: is the site built?"
    assert failures == [], (
        f"axe-core {axe_rules.axe_version(axe_rules.axe_source()[0])}: "
        f"{len(failures)} violations\n" + "\n".join(failures)
    )


# The harness itself: the same run reports the kinds of problem it is there to catch.
BROKEN = """() => {
  const main = document.querySelector('main');
  main.insertAdjacentHTML('beforeend',
    '<pre id="wide" style="overflow-x: auto; width: 100px">' + 'x'.repeat(400) + '</pre>' +
    '<table id="corner"><thead><tr><th></th><th>a</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>' +
    '<form role="search" id="one"><input aria-label="q1"></form><form role="search" id="two"><input aria-label="q2"></form>' +
    '<input id="unlabelled" type="text">' +
    '<p id="faint" style="color: #777; background: #888">faint text</p>');
}"""


def test_the_audit_reports_each_kind_of_problem_it_is_meant_to_catch(page, site, course, axe):
    page.goto((site / "en" / f"{course.lessons[0].id}.html").as_uri())
    page.evaluate(BROKEN)
    found = axe_rules.rule_ids(axe_rules.audit(axe, page))
    expected = {"scrollable-region-focusable", "empty-table-header", "landmark-unique", "label", "color-contrast"}
    assert expected <= found, f"missing {sorted(expected - found)}; found {sorted(found)}"
