"""The decks laid out in headless Chromium: what a lecturer would see, slide by slide.

    checker = LayoutChecker.open()        # None (with `checker_missing()` saying why) without a browser
    en, zh = checker.measure_all([en_html, zh_html])   # DeckLayouts: every slide, every fragment shown
    checker.close()

Each slide is shown (reveal's own navigation) with every fragment visible, so an in-class
question's answer is measured too, and checked for:

- `overflow`: how far (px on the 1280x720 canvas) any element reaches outside the slide;
- `scrolled`: regions whose content is larger than their box (a scrollbar or a clip);
- `lead_in`: the text of a paragraph ending in a colon that closes the slide's body (what it
  introduces is not on the slide).

It also reports the height of every body piece (`data-piece`), which the deck's pagination
(coursegen.slides.fit) uses instead of its estimate. One browser for a whole build, one page per
deck; a lesson's decks in its languages are measured side by side (each page measures itself in
its own task, so they overlap; the build's deck step went from 33 s to 24 s on the first course).
Without Playwright or Chromium the build goes on, and says once that the check was skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")


def chromium_path() -> Path:
    """The browser the check drives: /usr/bin/chromium, or $COURSEGEN_CHROMIUM."""
    return Path(os.environ.get("COURSEGEN_CHROMIUM") or CHROMIUM)


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TOLERANCE = 1.5  # px: sub-pixel rounding of the scaled canvas

BOTTOM_RESERVE = 34  # px at the foot of the slide kept free for reveal's controls and slide number

MEASURE = (
    r"""
() => {
  const RESERVE = %d;
  const scale = Reveal.getScale() || 1;
  document.querySelectorAll('.slides .fragment').forEach(f => f.classList.add('visible'));
  const sections = Array.from(document.querySelectorAll('.slides > section'));
  const describe = (e) => {
    const cls = (e.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2).join('.');
    const text = (e.innerText || e.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
    return e.tagName.toLowerCase() + (cls ? '.' + cls : '') + (text ? ' "' + text + '"' : '');
  };
  const results = [];
  sections.forEach((section, index) => {
    Reveal.slide(index, 0);
    section.querySelectorAll('.fragment').forEach(f => f.classList.add('visible'));
    if (window.coursegenFit) { window.coursegenFit(section); }
    const box = section.getBoundingClientRect();
    let overflow = 0, culprit = '';
    const scrolled = [];
    for (const e of section.querySelectorAll('*')) {
      if (e.closest('aside.notes') || (e.closest('svg') && e.tagName.toLowerCase() !== 'svg')) { continue; }
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) { continue; }
      // the bottom strip holds reveal's controls, slide number and progress bar
      const out = Math.max(box.left - r.left, r.right - box.right, box.top - r.top, r.bottom - (box.bottom - RESERVE * scale)) / scale;
      if (out > overflow + 0.01) { overflow = out; culprit = describe(e); }
      const style = getComputedStyle(e);
      const clips = (v) => v !== 'visible';
      if ((clips(style.overflowX) && e.scrollWidth > e.clientWidth + 2) ||
          (clips(style.overflowY) && e.scrollHeight > e.clientHeight + 2)) {
        if (e.tagName.toLowerCase() !== 'svg') {
          scrolled.push(describe(e) + ' (' + Math.max(e.scrollWidth - e.clientWidth, e.scrollHeight - e.clientHeight) + ' px hidden)');
        }
      }
    }
    let leadIn = '';
    const body = section.querySelector('.slide-body');
    if (body) {
      const blocks = Array.from(body.querySelectorAll('p, ul, ol, dl, pre, table, figure, .math.block, math[display="block"], svg'))
        .filter(e => !e.closest('aside.notes') && e.getBoundingClientRect().height > 0);
      const last = blocks[blocks.length - 1];
      if (last && last.tagName.toLowerCase() === 'p' && !last.closest('li, figure, .question-answer')) {
        const text = (last.innerText || '').trim();
        if (/[:：]$/.test(text)) { leadIn = text.slice(0, 80); }
      }
    }
    const pieces = {};
    section.querySelectorAll('[data-piece]').forEach(p => {
      const r = p.getBoundingClientRect();
      const lastChild = p.lastElementChild;
      const margin = lastChild ? parseFloat(getComputedStyle(lastChild).marginBottom) || 0 : 0;
      pieces[p.getAttribute('data-piece')] = r.height / scale + margin;
    });
    const bodyBox = body ? body.getBoundingClientRect() : null;
    results.push({
      id: section.id, overflow: overflow, culprit: culprit, scrolled: scrolled, lead_in: leadIn, pieces: pieces,
      room: bodyBox ? (box.bottom - bodyBox.top) / scale : 0,
    });
  });
  Reveal.slide(0, 0);
  return results;
}
"""
    % BOTTOM_RESERVE
)


# MEASURE started in the page's own task queue: the call returns at once, and the page leaves
# {slides} or {error} in window.__coursegenMeasured.
START_MEASURE = """() => {
  window.__coursegenMeasured = undefined;
  const run = %s;
  setTimeout(() => {
    try { window.__coursegenMeasured = {slides: run()}; }
    catch (e) { window.__coursegenMeasured = {error: String(e)}; }
  }, 0);
}""" % MEASURE.strip()


@dataclass
class SlideLayout:
    id: str
    overflow: float  # px outside the slide (0 when it fits)
    culprit: str  # the element reaching furthest out
    scrolled: list[str] = field(default_factory=list)
    lead_in: str = ""
    pieces: dict[str, float] = field(default_factory=dict)  # data-piece -> height (px)
    room: float = 0.0  # px from the top of the slide's body to the bottom of the slide

    @property
    def fits(self) -> bool:
        return self.overflow <= TOLERANCE and not self.scrolled

    def problems(self) -> list[str]:
        found = []
        if self.overflow > TOLERANCE:
            found.append(f"{self.overflow:.0f} px outside the slide ({self.culprit})")
        found += [f"content behind a scrollbar or clipped: {region}" for region in self.scrolled]
        if self.lead_in:
            found.append(f"the slide ends with a lead-in sentence, what it introduces is not on it: {self.lead_in!r}")
        return found


@dataclass
class DeckLayout:
    path: Path
    slides: list[SlideLayout]

    @property
    def ids(self) -> list[str]:
        return [slide.id for slide in self.slides]


_missing_reason = ""


def checker_missing() -> str:
    """Why the last LayoutChecker.open() gave None ("" when it did not)."""
    return _missing_reason


class LayoutChecker:
    """One headless Chromium for the whole build, with a page per deck measured at once (a lesson's
    languages), kept for the next lesson's decks: a page navigated to the next deck stays in its
    renderer process, where a new page starts one (a deck measured in a new page took three times
    the CPU, the process's start and the fonts and scripts it loads again)."""

    def __init__(self, playwright, browser) -> None:
        self._playwright, self._browser = playwright, browser
        self._context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="light")
        self._pages: list = []  # (page, the errors it reported since its last navigation)
        self.decks_measured = 0

    def _page(self, index: int):
        """The `index`th kept page, left blank, and its error list, emptied; opened on first use. The
        deck it showed may still throw until it is left (a timer), and Playwright hands over such an
        error only while it waits on the browser: the page goes to about:blank (no script) first, so
        every error of the old deck arrives before the list is emptied, none is blamed on the next."""
        if index == len(self._pages):
            page, found = self._context.new_page(), []
            page.on("pageerror", lambda error: found.append(str(error)))
            self._pages.append((page, found))
        page, found = self._pages[index]
        page.goto("about:blank", wait_until="commit")
        found.clear()
        return page, found

    @classmethod
    def open(cls) -> "LayoutChecker | None":
        global _missing_reason
        if os.environ.get("COURSEGEN_SKIP_LAYOUT"):
            _missing_reason = "COURSEGEN_SKIP_LAYOUT is set"
            return None
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            _missing_reason = "the Python package 'playwright' is not installed (pip install playwright)"
            return None
        chromium = chromium_path()
        if not chromium.is_file():
            _missing_reason = f"{chromium} is missing (install the Debian package 'chromium')"
            return None
        playwright = sync_playwright().start()
        try:
            browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        except Exception as exc:  # noqa: BLE001 - any launch failure means: no check, say why
            playwright.stop()
            _missing_reason = f"Chromium did not start ({str(exc).splitlines()[0]})"
            return None
        _missing_reason = ""
        return cls(playwright, browser)

    def measure_all(self, decks: list[Path]) -> list[DeckLayout]:
        """Every deck of `decks` measured side by side, one page each: each page loads and then
        measures itself in its own renderer while the others do (a lesson's decks in its languages
        took twice as long one after the other); the results are the same either way."""
        pages, errors = [], []
        try:
            for index, deck in enumerate(decks):
                page, found = self._page(index)
                pages.append(page)
                errors.append(found)
                page.goto(Path(deck).resolve().as_uri(), wait_until="commit")  # a new document
            for page in pages:  # as loaded as a page waited for with wait_until="load", and laid out
                page.wait_for_function("() => document.readyState === 'complete'", timeout=30_000)
                page.wait_for_selector("html[data-deck-ready]", state="attached", timeout=30_000)
                page.evaluate("document.fonts.ready.then(() => true)")
                page.evaluate(START_MEASURE)  # returns at once; the page measures itself
            raws = []
            for page in pages:
                page.wait_for_function("() => window.__coursegenMeasured !== undefined", timeout=60_000)
                raws.append(page.evaluate("() => window.__coursegenMeasured"))
        except BaseException:
            for page, _ in self._pages:  # a page left half-way is not used again
                page.close()
            self._pages.clear()
            raise
        layouts = []
        for deck, raw, found in zip(decks, raws, errors):
            if found or "error" in raw:
                raise RuntimeError(f"{deck}: {found[0] if found else raw['error']}")
            self.decks_measured += 1
            layouts.append(DeckLayout(Path(deck), [SlideLayout(**item) for item in raw["slides"]]))
        return layouts

    def close(self) -> None:
        try:
            self._context.close()
            self._browser.close()
        finally:
            self._playwright.stop()
