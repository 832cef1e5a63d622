"""Every deck of the first course, both languages, as a lecturer sees it in Chromium: each slide
shown with every fragment (answers revealed), nothing outside the 1280x720 slide, no region that
scrolls or clips, no slide ending with a lead-in sentence, the en and zh decks the same slides in
the same order, every in-class answer on a slide whole.

The measure here is written apart from the build's (coursegen/slides/layout.py): it walks the
slide's text with Range rectangles, not element boxes, and counts the decks' slides from the
HTML. Screenshots of the kinds of slide a lecturer checks land in _artifacts/screenshots/.
"""

from __future__ import annotations

import pytest
import yaml

from .conftest import REPO

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCREENSHOTS = REPO / "_artifacts" / "screenshots"

WALK = r"""
() => {
  const sections = Array.from(document.querySelectorAll('.slides > section'));
  const found = [];
  sections.forEach((section, index) => {
    Reveal.slide(index, 0);
    while (Reveal.nextFragment()) {}
    const box = section.getBoundingClientRect();
    const scale = box.width / 1280;
    const outside = [];
    // every run of text on the slide, by its own rectangles
    const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest('aside.notes, svg, style')) { continue; }
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width === 0) { continue; }
        const by = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - box.bottom) / scale;
        if (by > 2) { outside.push(Math.round(by) + 'px: ' + node.textContent.trim().slice(0, 40)); }
      }
    }
    for (const image of section.querySelectorAll('svg, img')) {
      if (image.closest('aside.notes') || image.parentElement.closest('svg')) { continue; }
      const r = image.getBoundingClientRect();
      if (r.bottom - box.bottom > 2 * scale || r.right - box.right > 2 * scale) { outside.push('figure'); }
    }
    const scrolls = [];
    for (const e of section.querySelectorAll('*')) {
      if (e.closest('aside.notes') || e.closest('svg')) { continue; }
      const style = getComputedStyle(e);
      const clipsX = style.overflowX !== 'visible', clipsY = style.overflowY !== 'visible';
      if ((clipsX && e.scrollWidth - e.clientWidth > 2) || (clipsY && e.scrollHeight - e.clientHeight > 2)) {
        scrolls.push(e.tagName + '.' + e.className);
      }
    }
    // the slide's own text, the last paragraph of its body
    const paragraphs = Array.from(section.querySelectorAll('.slide-body p'))
      .filter(p => !p.closest('aside.notes, li, figure, .question-answer') && p.offsetParent !== null);
    const body = section.querySelector('.slide-body');
    const lastBlock = body ? Array.from(body.querySelectorAll('p, li, pre, math, table, svg'))
      .filter(e => !e.closest('aside.notes')).pop() : null;
    const endsWithLeadIn = !!(lastBlock && lastBlock.tagName === 'P' && paragraphs.includes(lastBlock) &&
      /[:：]\s*$/.test(lastBlock.innerText));
    const answer = section.querySelector('.question-answer');
    found.push({
      id: section.id, outside: outside, scrolls: scrolls, lead_in: endsWithLeadIn,
      answer: answer ? (!answer.classList.contains('fragment') || answer.classList.contains('visible')) : null,
    });
  });
  return found;
}
"""


def lessons() -> list[str]:
    return yaml.safe_load((REPO / "content" / "course.yaml").read_text(encoding="utf-8"))["lessons"]


def test_every_slide_of_every_deck_fits_whole_in_both_languages_with_answers_revealed(browser, site):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()  # navigated deck to deck: a new page per deck costs three times the CPU
    problems: dict[str, list[str]] = {}
    counted = questions = 0
    try:
        for lesson in lessons():
            ids = {}
            for lang in ("en", "zh"):
                page.goto((site / lang / "slides" / f"{lesson}.html").as_uri())
                page.wait_for_selector("html[data-deck-ready]", state="attached")
                slides = page.evaluate(WALK)
                ids[lang] = [slide["id"] for slide in slides]
                for slide in slides:
                    counted += 1
                    wrong = [f"outside: {o}" for o in slide["outside"][:3]] + [
                        f"scrolls: {s}" for s in slide["scrolls"]
                    ]
                    if slide["lead_in"]:
                        wrong.append("ends with a lead-in sentence")
                    if slide["answer"] is not None:
                        questions += 1
                        if not slide["answer"]:
                            wrong.append("the answer was not revealed")
                    if wrong:
                        problems[f"{lang}/{lesson}#{slide['id']}"] = wrong
            assert ids["en"] == ids["zh"], lesson
    finally:
        context.close()
    assert counted >= 2 * 8 * 10 and questions >= 8  # every deck, both languages, their questions
    assert problems == {}


def test_screenshots_of_a_deck_in_both_languages(browser, site):
    """Title, a code slide with its output, a formula, a figure, a results slide and a concept
    check (answer shown), in both languages, for a person to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    taken = 0
    try:
        for lang in ("en", "zh"):
            page = context.new_page()
            page.goto((site / lang / "slides" / "capstone-tiny-lm.html").as_uri())
            page.wait_for_selector("html[data-deck-ready]", state="attached")
            kinds = page.evaluate(
                "Array.from(document.querySelectorAll('.slides > section'), (s, i) => [i, s.className, "
                "!!s.querySelector('.math.block')])"
            )
            wanted = {
                "title": next(i for i, c, _ in kinds if "slide-title" in c),
                "code": next(i for i, c, _ in kinds if "slide-code" in c),
                "math": next(i for i, c, m in kinds if m),
                "figure": next(i for i, c, _ in kinds if "slide-figure" in c),
                "results": next(i for i, c, _ in kinds if "slide-results" in c),
                "question": next(i for i, c, _ in kinds if "slide-question" in c),
            }
            for name, index in wanted.items():
                page.evaluate(f"Reveal.slide({index}, 0)")
                if name == "question":
                    page.keyboard.press("a")
                page.wait_for_timeout(80)
                page.screenshot(path=str(SCREENSHOTS / f"deck-{lang}-{name}.png"))
                taken += 1
            page.close()
    finally:
        context.close()
    assert taken == 12
