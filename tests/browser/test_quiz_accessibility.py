"""Quiz pages for keyboard and screen-reader users: feedback and score are live regions that exist
(empty) from page load and only change their content; Enter in an answer field checks that
question; answer fields have a visible label and themed colours (text and placeholder >= 4.5:1);
a question answered with the keyboard alone is saved as a screenshot in both themes."""

from __future__ import annotations

from pathlib import Path

import pytest

from .colours import COLOUR_HELPERS, contrast
from .test_quiz import VERDICT, plain_single_choice_question
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "_artifacts" / "screenshots"
LIVE = ".quiz-feedback, .quiz-score"

# Record every change to the live regions from now on: which attributes changed, whether content did.
WATCH_REGIONS = (
    """() => {
  window.regions = Array.from(document.querySelectorAll('%s'));
  window.regionChanges = {attributes: [], content: 0};
  const observer = new MutationObserver(records => records.forEach(r => {
    if (r.type === 'attributes') window.regionChanges.attributes.push(r.attributeName);
    else window.regionChanges.content += 1;
  }));
  window.regions.forEach(el => observer.observe(el, {attributes: true, childList: true, characterData: true, subtree: true}));
}"""
    % LIVE
)

SAME_REGIONS = (
    """() => { const now = Array.from(document.querySelectorAll('%s'));
  return now.length === window.regions.length && now.every((el, i) => el === window.regions[i]); }"""
    % LIVE
)


def quiz_pages(site) -> list[Path]:
    pages = sorted(site.glob("*/quiz-*.html"))
    assert pages, "the built course has no quiz page"
    return pages


def accessibility_node(page, selector: str) -> dict:
    """Chromium's accessibility node for the first element matching `selector` (over CDP)."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        return cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
    finally:
        cdp.detach()


def property_value(node: dict, name: str):
    return next((p["value"].get("value") for p in node.get("properties", []) if p["name"] == name), None)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_live_regions_are_in_the_accessibility_tree_and_empty_from_page_load(page, site, lang):
    for path in nonempty(quiz_pages(site)):
        if path.parent.name != lang:
            continue
        page.goto(path.as_uri())
        regions = page.locator(LIVE)
        count = regions.count()
        assert count == page.locator(".quiz-question").count() + 1, path
        for index in range(count):
            region = regions.nth(index)
            assert region.get_attribute("role") == "status" and region.get_attribute("aria-live") == "polite"
            assert region.get_attribute("hidden") is None and region.inner_text() == "", path
            assert region.evaluate("el => getComputedStyle(el).display") != "none"
        for selector in (".quiz-feedback", ".quiz-score"):
            node = accessibility_node(page, selector)
            assert not node.get("ignored"), (path, selector, node)
            assert node["role"]["value"] == "status" and property_value(node, "live") == "polite", node


def test_checking_changes_only_the_content_of_the_live_regions(page, site):
    page.goto(quiz_pages(site)[0].as_uri())
    page.evaluate(WATCH_REGIONS)
    first = page.locator(".quiz-question").first
    first.locator(".quiz-check").click()  # unanswered: "answer first"
    assert first.locator(".quiz-feedback").inner_text().strip()
    options = first.locator(".quiz-options input")
    if options.count():
        options.first.check()
    else:
        first.locator("input, select").first.evaluate(
            "el => el.tagName === 'SELECT' ? (el.selectedIndex = 1) : (el.value = '1')"
        )
    first.locator(".quiz-check").click()  # a verdict
    page.locator(".quiz-check-all").click()  # every verdict and the score
    assert "/" in page.locator(".quiz-score").inner_text()
    changes = page.evaluate("window.regionChanges")
    assert changes["content"] >= 3
    assert set(changes["attributes"]) <= {"data-verdict"}, changes  # never hidden, style, role or aria-live
    assert page.evaluate(SAME_REGIONS), "a live region was replaced instead of updated"


def text_question(page):
    """The first question answered in a text field, and its field."""
    box = page.locator("fieldset.quiz-question:has(input.quiz-input)").first
    return box, box.locator("input.quiz-input")


def test_enter_in_a_text_answer_checks_that_question_only(page, site):
    page.goto(quiz_pages(site)[0].as_uri())
    box, field = text_question(page)
    url = page.url
    field.focus()
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") in ("right", "wrong", "partly")
    assert box.locator(".quiz-feedback").inner_text().strip()
    others = page.locator(".quiz-question").evaluate_all(
        "(boxes, id) => boxes.filter(b => b.id !== id).map(b => b.querySelector('.quiz-feedback').textContent)",
        box.get_attribute("id"),
    )
    assert others and all(text == "" for text in others)
    assert page.locator(".quiz-score").inner_text() == ""
    assert page.url == url and page.evaluate("document.activeElement.classList.contains('quiz-input')")


def test_enter_on_a_chosen_option_checks_that_question(open_page, course):
    lesson_id, question = plain_single_choice_question(course)
    page = open_page(f"en/quiz-{lesson_id}.html")
    box = page.locator(f"#q-{question['id']}")
    right = next(o for o in question["options"] if o.get("correct"))
    box.get_by_label(right["text"]["en"], exact=True).focus()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "right"


def test_enter_that_confirms_an_input_method_candidate_does_not_check(page, site):
    page.goto(quiz_pages(site)[0].as_uri())
    box, field = text_question(page)
    field.fill("位置")
    field.evaluate(
        "el => el.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', keyCode: 229, isComposing: true, bubbles: true}))"
    )
    assert box.locator(".quiz-feedback").inner_text() == ""


FIELDS = (
    "() => {"
    + COLOUR_HELPERS
    + r"""
  function fieldBackground(el) {
    const own = parse(getComputedStyle(el).backgroundColor);
    return own && own.a > 0 ? over(own, background(el.parentElement)) : background(el);
  }
  // The text of a label that a sighted user sees: text nodes (outside the field itself) that are
  // painted where they lie, so text clipped away (.visually-hidden) does not count.
  function seenText(label, field) {
    label.scrollIntoView({block: 'center'});
    const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
    const seen = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || field.contains(node)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (r.width > 4 && r.height > 4 && hit && node.parentElement.contains(hit)) seen.push(node.textContent.trim());
    }
    return seen.join(' ');
  }
  return Array.from(document.querySelectorAll('input.quiz-input, .quiz-question select, input[type=search]')).map(el => {
    const back = fieldBackground(el);
    const labels = Array.from(el.labels || []).map(label => ({
      text: seenText(label, el), colour: parse(getComputedStyle(label).color), background: background(label)}));
    return {id: el.id || el.name, kind: el.className || el.type, colour: parse(getComputedStyle(el).color),
            placeholder: parse(getComputedStyle(el, '::placeholder').color), background: back, labels};
  });
}"""
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_answer_fields_have_visible_labels_and_readable_themed_colours(make_page, site, scheme):
    page = make_page(scheme)
    failures, answer_fields = [], 0
    try:
        for path in quiz_pages(site) + [site / "en" / "search.html"]:
            page.goto(path.as_uri())
            for field in page.evaluate(FIELDS):
                where = f"{path.parent.name}/{path.name} {field['id']} [{scheme}]"
                for what in ("colour", "placeholder"):
                    ratio = contrast(field[what], field["background"])
                    if ratio < 4.5:
                        failures.append(f"{where}: {what} {field[what]} on {field['background']}: {ratio:.2f} < 4.5")
                if field["kind"] == "search":
                    continue  # search boxes: a hidden label plus the "Search" placeholder, the common pattern
                answer_fields += 1
                visible = [label for label in field["labels"] if label["text"]]
                if not visible:
                    failures.append(f"{where}: no visible label ({field['labels']})")
                for label in visible:
                    if contrast(label["colour"], label["background"]) < 4.5:
                        failures.append(f"{where}: label {label['text']!r} below 4.5:1")
    finally:
        page.context.close()
    assert answer_fields > 0
    assert failures == [], "\n".join(failures)


def tab_until(page, condition: str, limit: int = 300) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(condition):
            return
    raise AssertionError(f"{limit} presses of Tab never reached: {condition}")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshot_of_a_quiz_answered_with_the_keyboard_only(make_page, site, course, scheme):
    """Tab to a single-choice question, arrow to the right option, Enter; Tab to a text field,
    type, Enter. The page is saved as _artifacts/screenshots/quiz-keyboard-<scheme>.png."""
    lesson_id, question = plain_single_choice_question(course)
    right = next(o for o in question["options"] if o.get("correct"))["text"]["en"].strip()
    page = make_page(scheme)
    try:
        page.goto((site / "en" / f"quiz-{lesson_id}.html").as_uri())
        box = page.locator(f"#q-{question['id']}")
        tab_until(page, f"document.activeElement.closest('#q-{question['id']}') !== null")
        for _ in range(len(question["options"]) + 1):
            page.keyboard.press("ArrowDown")  # moves and selects, wrapping round the group
            label = page.evaluate("document.activeElement.closest('label').innerText.trim()")
            if label == right:
                break
        page.keyboard.press("Enter")
        assert box.locator(".quiz-feedback").get_attribute("data-verdict") == "right"
        says_right = VERDICT["en"][0]
        assert says_right.search(box.locator(".quiz-feedback").inner_text().strip())

        if page.locator("input.quiz-input").count():
            tab_until(page, "document.activeElement.classList.contains('quiz-input')")
            page.keyboard.type("2")
            page.keyboard.press("Enter")
            answered = page.locator("fieldset.quiz-question:has(input.quiz-input:focus) .quiz-feedback")
            assert answered.inner_text().strip()

        box.evaluate("el => el.scrollIntoView({block: 'start'})")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / f"quiz-keyboard-{scheme}.png"
        page.screenshot(path=str(target))
        assert target.stat().st_size > 10_000, f"{target} looks empty"
        assert page.problems.all() == []
    finally:
        page.context.close()
