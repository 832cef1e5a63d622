"""The lesson slide decks in headless Chromium, opened from file:// as an instructor would:
every deck of both languages loads with no error and no request off the machine, the keyboard
moves through it, an in-class question shows its answer on a key press, the speaker view opens
with the notes and the next slide, axe-core finds nothing, text is large and contrasted enough
for a projector, and `coursegen slides --pdf` prints a page per slide.

Expected values come from the lesson YAML read here with PyYAML (not through coursegen) and from
what Chromium shows. Screenshots (1280x720, light and dark, both languages) land in
_artifacts/screenshots/slides-*.png.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from . import axe as axe_rules
from .colours import contrast
from .conftest import REPO, watch
from .test_themes import TEXT_COLOURS_OF
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCREENSHOTS = REPO / "_artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 720}
SHOWN_LESSON = "rope-alibi"  # the lesson whose slides are photographed


def lesson_yaml(lesson_id: str) -> dict:
    return yaml.safe_load((REPO / "content" / "lessons" / f"{lesson_id}.yaml").read_text(encoding="utf-8"))


def quiz_yaml(lesson_id: str) -> dict | None:
    quiz = lesson_yaml(lesson_id).get("quiz")
    path = REPO / "content" / "quizzes" / f"{quiz}.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8")) if quiz and path.is_file() else None


def decks(site: Path) -> list[tuple[str, str]]:
    """(lang, lesson id) of every deck the course must have."""
    lessons = yaml.safe_load((REPO / "content" / "course.yaml").read_text(encoding="utf-8"))["lessons"]
    return [(lang, lesson) for lang in ("en", "zh") for lesson in lessons]


def deck_page(browser, scheme: str = "light"):
    """A new blank page at the decks' size, in a context of its own (close it with
    page.context.close()), recording its problems (`page.problems`)."""
    context = browser.new_context(viewport=VIEWPORT, color_scheme=scheme)
    page = context.new_page()
    page.problems = watch(page)
    return page


def open_deck(browser, site: Path, lang: str, lesson: str, scheme: str = "light", fragment: str = ""):
    """A new page showing the deck (see deck_page)."""
    return visit_deck(deck_page(browser, scheme), site, lang, lesson, fragment)


def visit_deck(page, site: Path, lang: str, lesson: str, fragment: str = ""):
    """`page` (from deck_page) navigated to the deck, with no problem recorded yet. A test that walks
    every deck navigates one page from deck to deck: a new page starts a renderer process and loads
    the fonts and reveal.js again, three times the CPU of a deck loaded in a page already open."""
    page.problems.clear()
    page.goto((site / lang / "slides" / f"{lesson}.html").as_uri() + fragment)
    page.wait_for_selector("html[data-deck-ready]", state="attached")
    return page


def indices(page) -> tuple[int, int | None]:
    found = page.evaluate("Reveal.getIndices()")
    return found["h"], found.get("f")


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(50)
    page.screenshot(path=str(SCREENSHOTS / f"slides-{name}.png"))


def longest_plain_run(markdown_text: str) -> str:
    """The longest stretch of the text without math, code or markup: words, or Chinese characters."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\]\([^)]*\)|[*_\[\]]", "\n", markdown_text, flags=re.S)
    runs = re.findall(r"[A-Za-z][A-Za-z ,;'-]*[A-Za-z]|[\u4e00-\u9fff，、；]{2,}", text)
    return max(runs, key=len).strip()


def test_every_deck_of_both_languages_loads_offline_with_a_slide_per_section(browser, site):
    problems, counted = {}, 0
    page = deck_page(browser)
    try:
        for lang, lesson in nonempty(decks(site)):
            visit_deck(page, site, lang, lesson)
            page.wait_for_timeout(50)
            found = page.problems.all()
            if found:
                problems[f"{lang}/{lesson}"] = found
            source = lesson_yaml(lesson)
            total = page.evaluate("Reveal.getTotalSlides()")
            section_ids = [s["id"] for s in source["sections"]]
            shown = page.evaluate("Array.from(document.querySelectorAll('.slides > section'), s => s.id)")
            # the title, then at least one slide per section, in the lesson's order
            assert shown[0] == "title", shown
            firsts = [next((i for i, sid in enumerate(shown) if sid == f"s-{sec}"), None) for sec in section_ids]
            assert None not in firsts and firsts == sorted(firsts), (lang, lesson, shown)
            questions = (quiz_yaml(lesson) or {}).get("questions", [])
            assert total == len(shown) >= 1 + len(section_ids) + len(questions) + len(source.get("exercises", []))
            assert page.locator(".slides h1").count() == 1
            assert page.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")
            counted += 1
    finally:
        page.context.close()
    assert counted == len(decks(site)) >= 2
    assert problems == {}


def test_right_arrow_and_a_click_on_the_control_move_to_the_next_slide(browser, site):
    page = open_deck(browser, site, "en", SHOWN_LESSON)
    try:
        assert indices(page)[0] == 0
        page.keyboard.press("ArrowRight")
        assert indices(page)[0] == 1
        page.keyboard.press("ArrowLeft")
        assert indices(page)[0] == 0
        page.locator(".controls .navigate-right").click()
        assert indices(page)[0] == 1
        number = page.locator(".slide-number").inner_text()
        assert re.fullmatch(r"\s*2\s*/\s*\d+\s*", number), number
        page.keyboard.press("o")
        page.wait_for_timeout(100)
        assert page.evaluate("Reveal.isOverview()")
        shot(page, "overview")
        page.keyboard.press("Escape")
        assert not page.evaluate("Reveal.isOverview()")
        assert page.problems.all() == []
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_slide_shows_its_answer_on_a_key_press(browser, site, lang):
    quiz = quiz_yaml(SHOWN_LESSON)
    assert quiz, "the photographed lesson needs a quiz"
    for number, key in ((0, "ArrowRight"), (1, "a")):
        question = quiz["questions"][number]
        page = open_deck(browser, site, lang, SHOWN_LESSON, fragment=f"#/question-{question['id']}")
        try:
            slide = page.locator(f"section#question-{question['id']}")
            answer = slide.locator(".question-answer")
            assert slide.evaluate("s => s.classList.contains('present')")
            assert answer.evaluate("a => getComputedStyle(a).visibility") == "hidden"
            before = indices(page)[0]
            shot(page, f"question-{lang}-before")
            page.keyboard.press(key)
            page.wait_for_function(
                "a => getComputedStyle(a).visibility === 'visible' && getComputedStyle(a).opacity === '1'",
                arg=answer.element_handle(),
            )
            assert indices(page)[0] == before, "the key showed the answer, it did not change the slide"
            text = " ".join(answer.inner_text().split())
            assert longest_plain_run(question["explanation"][lang]) in text, text
            shot(page, f"question-{lang}-answered")
            assert page.problems.all() == []
        finally:
            page.context.close()


def test_the_speaker_view_opens_with_the_notes_and_the_next_slide(browser, site):
    # the title slide's notes say how to drive the deck (a paragraph is no longer cut to its first
    # sentence on a slide, so the notes hold what the speaker says beside it)
    phrase = "S speaker view with notes"
    page = open_deck(browser, site, "en", SHOWN_LESSON, fragment="#/title")
    try:
        current = indices(page)[0]
        with page.context.expect_page() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        notes = speaker.locator(".speaker-controls-notes .value")
        speaker.wait_for_function("() => document.querySelector('.speaker-controls-notes .value').innerText.length > 0")
        shown_notes = " ".join(notes.inner_text().split())
        assert phrase in shown_notes, (phrase, shown_notes[-300:])
        upcoming = speaker.frame_locator("#upcoming-slide iframe")
        assert upcoming.locator("html[data-deck-ready]").count() == 1
        upcoming_frame = speaker.frame(url=re.compile(r"receiver"))
        assert upcoming_frame is not None
        frames = [f for f in speaker.frames if "receiver" in f.url]
        positions = sorted(f.evaluate("Reveal.getIndices().h") for f in frames)
        assert positions == [current, current + 1], positions
        speaker.set_viewport_size({"width": 1280, "height": 800})
        speaker.wait_for_timeout(200)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        speaker.screenshot(path=str(SCREENSHOTS / "slides-speaker-view.png"))
        # the speaker view drives the deck: its next key moves the audience's slide
        speaker.keyboard.press("ArrowRight")
        page.wait_for_function(f"Reveal.getIndices().h !== {current} || Reveal.getIndices().f !== undefined")
        assert page.problems.all() == []
    finally:
        page.context.close()


@dataclass(frozen=True)
class Slide:
    lang: str
    lesson: str
    id: str
    kind: str  # the deck template's kind of slide, the first class of its <section>: "slide-code"
    components: frozenset[str]  # what the slide is made of, speaker notes aside: tag and classes, "span.kn"


class _DeckSlides(HTMLParser):
    """The slides (`.slides > section`) of a built deck as its HTML has them: id, kind, components."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.open: list[tuple[str, list[str]]] = []  # the elements open at this point: tag, classes
        self.slides: list[tuple[str, str, set[str]]] = []
        self.depth: int | None = None  # len(self.open) where the slide being read opened

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "section" and self.depth is None and self.open and "slides" in self.open[-1][1]:
            self.slides.append((attributes.get("id") or "", classes[0] if classes else "", set()))
            self.depth = len(self.open)
        if self.depth is not None and not any(t == "aside" and "notes" in c for t, c in self.open[self.depth :]):
            self.slides[-1][2].add(tag + "".join(f".{c}" for c in sorted(classes)))
        if tag not in self.VOID:
            self.open.append((tag, classes))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if any(name == tag for name, _ in self.open):  # closes what HTML leaves implicitly closed on the way
            while self.open.pop()[0] != tag:
                pass
        if self.depth is not None and len(self.open) <= self.depth:
            self.depth = None


@functools.cache
def deck_slides(site: Path, lang: str, lesson: str) -> tuple[Slide, ...]:
    """The slides of a built deck, in order, read from its HTML (not through coursegen)."""
    parser = _DeckSlides()
    parser.feed((site / lang / "slides" / f"{lesson}.html").read_text(encoding="utf-8"))
    return tuple(Slide(lang, lesson, sid, kind, frozenset(parts)) for sid, kind, parts in parser.slides)


@functools.cache
def axe_sample(site: Path) -> tuple[Slide, ...]:
    """The slides the axe audit runs on one by one, besides the first slide of every deck (which it
    audits with the whole document around it). For each language: a slide of every kind that no
    first slide is, then, greedily, the slide with most components that no audited slide has yet,
    until every component of the language's slides is audited. Ties go to the deck with fewest
    slides in the sample (variety), then to the course's order: the same site gives the same sample."""
    sample: list[Slide] = []
    for lang in dict.fromkeys(lang for lang, _ in decks(site)):
        slides = [slide for lg, lesson in decks(site) if lg == lang for slide in deck_slides(site, lang, lesson)]
        firsts = [deck_slides(site, lang, lesson)[0] for lg, lesson in decks(site) if lg == lang]
        kinds = {slide.kind for slide in firsts}
        covered = set().union(*(slide.components for slide in firsts))
        every_kind = {slide.kind for slide in slides}
        everything = set().union(*(slide.components for slide in slides))
        per_deck: dict[str, int] = defaultdict(int)
        while kinds != every_kind or covered != everything:
            unseen = sorted(every_kind - kinds)
            candidates = [slide for slide in slides if slide.kind == unseen[0]] if unseen else slides
            best = max(candidates, key=lambda s: (len(s.components - covered), -per_deck[s.lesson]))
            sample.append(best)
            kinds.add(best.kind)
            covered |= best.components
            per_deck[best.lesson] += 1
    return tuple(sample)


def test_the_axe_sample_has_every_kind_and_every_component_of_slide_in_each_language(site):
    """The axe audit runs on the first slide of every deck and on `axe_sample` (both schemes): in each
    language that must be a slide of every kind the decks have (one per kind of the deck template,
    `slide.kind`) and every component (tag and classes) of every slide, or a kind of slide would go
    unaudited; and fewer slides than there are, or there is nothing to gain from the sample."""
    sample = axe_sample(site)
    languages = dict.fromkeys(lang for lang, _ in decks(site))
    assert len(languages) == 2, languages
    for lang in languages:
        slides = [
            slide for lg, lesson in nonempty(decks(site)) if lg == lang for slide in deck_slides(site, lang, lesson)
        ]
        firsts = [deck_slides(site, lang, lesson)[0] for lg, lesson in decks(site) if lg == lang]
        audited = firsts + [slide for slide in nonempty(sample, "sampled slides") if slide.lang == lang]
        kinds = {slide.kind for slide in slides}
        assert len(kinds) >= 5 and all(kind.startswith("slide-") for kind in kinds), (lang, sorted(kinds))
        assert {slide.kind for slide in audited} == kinds, lang
        assert set().union(*(s.components for s in audited)) == set().union(*(s.components for s in slides)), lang
        assert any(slide.kind == "slide-question" for slide in audited), "no question slide has its answer audited"
        assert len(audited) < len(slides) / 2, (lang, len(audited), len(slides))


# In the dark scheme the axe audit runs only the rules whose outcome the scheme can change, on every
# state the light audit visits: axe's colour rules (color-contrast, link-in-text-block) and, because
# the dark code theme makes some tokens bold and changes a few paddings and borders, the one rule that
# depends on box sizes (scrollable-region-focusable). Every other rule reads the DOM, ARIA and what is
# visible, which the scheme does not change (test_the_dark_scheme_changes_only_colours_text_weight_and_box_sizes
# checks that for every deck, or fails): run in dark, they report what they report in light, and they
# took about a quarter of each dark audit's time. No colour violation of the dark scheme goes unseen:
# the colour rules run on the same states, over the same part of the document, as before.
DARK_RULES_BESIDES_COLOUR = {"scrollable-region-focusable"}


def dark_scheme_options(axe, page) -> dict:
    """axe's options for a dark-scheme audit: the colour rules and DARK_RULES_BESIDES_COLOUR, of the
    rules a light audit runs (axe_rules.RULE_TAGS)."""
    dark_rules = axe_rules.rules(axe, page, ["cat.color"]) | DARK_RULES_BESIDES_COLOUR
    dark_rules &= axe_rules.rules(axe, page, axe_rules.RULE_TAGS)
    assert {"color-contrast", "link-in-text-block", *DARK_RULES_BESIDES_COLOUR} <= dark_rules
    return {**axe_rules.OPTIONS, "runOnly": {"type": "rule", "values": sorted(dark_rules)}}


COLOUR_PROPERTY = re.compile(r"(--[\w-]+|color|fill|stroke|background(-[\w-]+)?|[\w-]+-color)")
TEXT_OR_BOX_PROPERTY = re.compile(
    r"(font-weight|font-style|line-height|text-decoration(-[\w-]+)?|padding(-[\w-]+)?|border(-[\w-]+)?)"
)
COLOUR_VALUE = re.compile(r"#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\([^)]*\)|[a-zA-Z]+")
DARK_MEDIA = re.compile(r"@media[^{]*prefers-color-scheme\s*:\s*dark[^{]*\{")


def dark_declarations(css: str) -> list[tuple[str, str]]:
    """(property, value) of every declaration inside `@media (prefers-color-scheme: dark)` blocks."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found = []
    for match in DARK_MEDIA.finditer(css):
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        for body in re.findall(r"\{([^{}]*)\}", css[match.end() - 1 : end]):
            found += [(n.strip(), v.strip()) for n, v in re.findall(r"([\w-]+)\s*:\s*([^;]+)", body)]
    return found


def dark_rule_problems(where: str, css: str) -> tuple[int, list[str]]:
    """(how many dark-scheme declarations `css` has, those that change more than colours, text
    weight and box sizes), each problem named with `where`."""
    declarations = dark_declarations(css)
    problems = []
    for name, value in declarations:
        if name.startswith("--") and not COLOUR_VALUE.fullmatch(value):
            problems.append(f"{where}: {name}: {value} (a custom property that is not a colour)")
        elif not (COLOUR_PROPERTY.fullmatch(name) or TEXT_OR_BOX_PROPERTY.fullmatch(name)):
            problems.append(f"{where}: {name}: {value}")
    return len(declarations), problems


def test_the_dark_scheme_changes_only_colours_text_weight_and_box_sizes(site):
    """What lets the dark audit run the colour rules (and scrollable-region-focusable) only: in every
    deck, the dark scheme's CSS sets colours (custom properties hold colours only), text weight, slant
    and decoration, and paddings, borders and line heights; no script reads the colour scheme, and no
    element chooses content by it (a <picture> source or a link's media query)."""
    problems, declarations = [], 0
    for lang, lesson in nonempty(decks(site)):
        deck = site / lang / "slides" / f"{lesson}.html"
        html = deck.read_text(encoding="utf-8")
        links = [tag for tag in re.findall(r"<link\b[^>]*>", html) if re.search(r"\brel=\"?stylesheet\b", tag)]
        hrefs = [re.search(r'\bhref="([^"]+)"', tag).group(1) for tag in links]
        assert hrefs, f"{deck.name}: no stylesheet found"
        sheets = {href: (deck.parent / href).read_text(encoding="utf-8") for href in hrefs}
        sheets["<style>"] = "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
        for source, css in sheets.items():
            count, found = dark_rule_problems(f"{deck.name} {source}", css)
            declarations += count
            problems += found
        outside_css = re.sub(r"<style[^>]*>.*?</style>", "", html, flags=re.S)
        scripts = [
            (deck.parent / src).read_text(encoding="utf-8")
            for src in re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', html)
        ]
        for text in (outside_css, *scripts):
            problems += [f"{deck.name}: {m}" for m in re.findall(r"prefers-color-scheme|matchMedia|colorScheme", text)]
    assert declarations > 10, "no dark scheme found: the deck's stylesheets changed"
    assert problems == [], (
        "the dark scheme changes more than colours, text weight and box sizes: audit every rule in dark too "
        "(test_axe_finds_no_violation_on_any_kind_of_slide_and_text_suits_a_projector)\n" + "\n".join(problems)
    )


# The slides `ids` of a deck, each as it opens, and a question's slide again with its answer shown:
# the text of the slide and of what surrounds it (reveal's controls, slide number), as TEXT_COLOURS_OF
# reports it. reveal.js runs with no transition: a slide is laid out as soon as Reveal.slide returns.
PROJECTED_TEXT = (
    "ids => { const textColours = "
    + TEXT_COLOURS_OF
    + """;
  const states = [];
  const look = section => textColours([...document.querySelectorAll('body *:not(.slides *)'), section,
                                       ...section.querySelectorAll('*')]);
  const sections = Array.from(document.querySelectorAll('.slides > section'));
  for (const id of ids) {
    const index = sections.findIndex(s => s.id === id), section = sections[index];
    if (!section) { states.push({id, answer: false, shown: false, items: []}); continue; }
    Reveal.slide(index, 0, -1);
    states.push({id, answer: false, shown: Reveal.getCurrentSlide() === section, items: look(section)});
    if (section.querySelector('.question-answer.fragment')) {
      while (!section.querySelector('.question-answer.visible') && Reveal.nextFragment()) {}
      states.push({id, answer: true, shown: !!section.querySelector('.question-answer.visible'),
                   items: look(section)});
    }
  }
  Reveal.slide(0, 0, -1);
  return states;
}"""
)


def first_of_each_kind(slides: tuple[Slide, ...]) -> dict[str, str]:
    """kind -> id of the deck's first slide of that kind, in the deck's order."""
    firsts: dict[str, str] = {}
    for slide in slides:
        firsts.setdefault(slide.kind, slide.id)
    return firsts


def show(page, slide_id: str) -> None:
    """The slide `slide_id` as it opens (no fragment shown); a question's answer shown with the A key."""
    page.evaluate(
        "id => Reveal.slide(Array.from(document.querySelectorAll('.slides > section')).findIndex(s => s.id === id), 0, -1)",
        slide_id,
    )
    assert page.evaluate("Reveal.getCurrentSlide().id") == slide_id
    if page.locator(f'section[id="{slide_id}"] .question-answer.fragment').count():
        page.keyboard.press("a")
        page.wait_for_selector(f'section[id="{slide_id}"] .question-answer.visible', state="attached")
    page.wait_for_timeout(30)


@pytest.mark.xdist_alone  # a minute per scheme: both run side by side under pytest-xdist
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_on_any_kind_of_slide_and_text_suits_a_projector(browser, site, scheme):
    """axe-core on every deck of both languages as a whole document at its first slide (its landmarks,
    title, controls and progress bar, what every slide shares, and the markup of every slide: the rules
    that do not depend on what is shown see it all), then on the slides of `axe_sample`, each shown
    alone (a question's with its answer): every kind of slide and every component of a slide, in each
    language. Text at least 16 px and 7:1 against its background (WCAG AAA, stricter than axe's colour
    contrast: a projector washes colours out) on the first slide of each kind of every deck, as it opens
    and, a question's, again with its answer shown."""
    axe = axe_rules.make_axe()
    sample = axe_sample(site)
    failures, audited, planned, projected, small, faint = [], [], [], [], [], []
    page, options = deck_page(browser, scheme), None  # options None: the light scheme, every rule of RULE_TAGS
    try:
        for lang, lesson in nonempty(decks(site)):
            slides = deck_slides(site, lang, lesson)
            visit_deck(page, site, lang, lesson)
            if scheme == "dark" and options is None:
                options = dark_scheme_options(axe, page)
            here = [slides[0]] + [slide for slide in sample if (slide.lang, slide.lesson) == (lang, lesson)]
            planned += [(lang, lesson, slide.id) for slide in here]
            for number, slide in enumerate(here):
                if number:
                    show(page, slide.id)
                else:
                    assert page.evaluate("Reveal.getCurrentSlide().id") == slide.id
                # axe over the whole deck at every slide takes twice as long and finds nothing more
                context = None if number == 0 else {"include": [[".slides > section.present"]]}
                result = axe_rules.audit(axe, page, context, options)
                failures += axe_rules.describe(f"{lang}/slides/{lesson}.html#{slide.id} [{scheme}]", result)
                audited.append((lang, lesson, page.evaluate("Reveal.getCurrentSlide().id")))
            measured = list(first_of_each_kind(slides).values())
            states = page.evaluate(PROJECTED_TEXT, measured)
            projected.append([state["id"] for state in states if not state["answer"]] == measured)
            assert all(state["shown"] for state in states), [state["id"] for state in states if not state["shown"]]
            for state in states:
                for item in state["items"]:
                    if item["colour"] is None or not item["text"]:
                        continue
                    ratio = contrast(item["colour"], item["background"])
                    where = f"{lang}/{lesson}#{state['id']} <{item['tag']} class={item['cls']!r}> {item['text']!r}"
                    if ratio < 7.0:  # a projector washes colours out: WCAG AAA for all slide text
                        faint.append(f"{where}: contrast {ratio:.2f} < 7")
                    if item["size"] < 16:
                        small.append(f"{where}: {item['size']} px")
            if lesson == SHOWN_LESSON:  # photographs: each kind of slide in English, the title in Chinese
                for kind, slide_id in first_of_each_kind(slides).items():
                    if lang == "en" or kind == "slide-title":
                        show(page, slide_id)
                        shot(page, f"{lesson}-{lang}-{kind.removeprefix('slide-')}-{scheme}")
    finally:
        page.context.close()
    assert audited == planned and len(planned) > len(decks(site)), (audited, planned)
    assert projected == [True] * len(decks(site)), "the text was not measured on every slide it should be"
    assert failures == [], "\n".join(failures)
    assert faint == [], "\n".join(sorted(set(faint)))
    assert small == [], "\n".join(sorted(set(small)))


def test_slide_body_text_is_projector_sized(browser, site):
    """Paragraphs and list items of every slide are at least 22 CSS px on the 1280x720 canvas."""
    page = open_deck(browser, site, "en", SHOWN_LESSON)
    try:
        sizes = page.evaluate(
            "Array.from(document.querySelectorAll('.slides .slide-body p, .slides .slide-body li'),"
            " e => [e.closest('section').id, parseFloat(getComputedStyle(e).fontSize)])"
        )
    finally:
        page.context.close()
    assert sizes
    assert [(slide, size) for slide, size in sizes if size < 22] == []


# ---- PDF handouts ------------------------------------------------------------------------------


def pdf_pages(data: bytes) -> int:
    """The number of page objects in a PDF, read without any PDF library: objects whose dictionary
    has /Type /Page (not /Pages), cross-checked with the page tree's /Count."""
    objects = re.findall(rb"\d+\s+\d+\s+obj\b(.*?)\bendobj", data, re.S)
    pages = sum(1 for body in objects if re.search(rb"/Type\s*/Page(?![a-zA-Z])", body))
    counts = [int(n) for n in re.findall(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)", data, re.S)]
    counts += [int(n) for n in re.findall(rb"/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", data, re.S)]
    assert counts and max(counts) == pages, (pages, counts)
    return pages


@pytest.fixture(scope="module")
def handouts(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("handouts") / "handouts"
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "slides", "--root", str(REPO), "--pdf", "-o", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    return out


def test_every_deck_prints_at_least_one_page_per_lesson_section(handouts, site):
    for lang, lesson in nonempty(decks(site)):
        path = handouts / lang / f"{lesson}.pdf"
        data = path.read_bytes()
        assert data.startswith(b"%PDF-"), path
        source = lesson_yaml(lesson)
        questions = (quiz_yaml(lesson) or {}).get("questions", [])
        pages = pdf_pages(data)
        assert pages >= 1 + len(source["sections"]) + len(questions), (lang, lesson, pages)
        # one slide per page: as many pages as the deck has slides
        slides = (site / lang / "slides" / f"{lesson}.html").read_text(encoding="utf-8").count("<section id=")
        assert pages == slides, (lang, lesson, pages, slides)


def test_handouts_are_byte_identical_when_printed_again_and_notes_add_no_page(handouts, tmp_path):
    again = tmp_path / "again"
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "slides", "--root", str(REPO), "--pdf", "-o", str(again),
         "--lesson", SHOWN_LESSON, "--lang", "zh"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(again).as_posix() for p in again.rglob("*.pdf")) == [f"zh/{SHOWN_LESSON}.pdf"]
    assert (again / "zh" / f"{SHOWN_LESSON}.pdf").read_bytes() == (handouts / "zh" / f"{SHOWN_LESSON}.pdf").read_bytes()
    notes = tmp_path / "notes"
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "slides", "--root", str(REPO), "--pdf", "--notes", "-o", str(notes),
         "--lesson", SHOWN_LESSON, "--lang", "en"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    with_notes = (notes / "en" / f"{SHOWN_LESSON}.pdf").read_bytes()
    plain = (handouts / "en" / f"{SHOWN_LESSON}.pdf").read_bytes()
    assert pdf_pages(with_notes) == pdf_pages(plain)
    sizes = {re.search(rb"/MediaBox\s*\[([^\]]*)\]", d).group(1).split()[3] for d in (with_notes, plain)}
    assert len(sizes) == 2, "notes make each page taller"
