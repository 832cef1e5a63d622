"""axe-core over the whole built course, both languages, light and dark: every page on a desktop
(1280x900), plus the states scripts create (search results shown, every quiz checked), and a sample
of the pages on a phone (390x844). Any violation of WCAG 2.0/2.1 A and AA or of the best practices
fails, except the rules listed in axe.ALLOWED with their reason.

Why the phone audits a sample, not every page. The phone and the desktop get the same colours (the
only media queries on width, in style.css, change the sidebar's placement and three font sizes), so
what the phone can add is layout: the page's skeleton (header, navigation, sidebar, the template's
own blocks) at 390 px, each component at its phone font size (contrast rules are stricter for text
that shrinks below axe's "large" size: the quiz score, 1.1em bold, is large text on the desktop and
normal text on the phone), and content wider than the screen. The sample holds, for each language,
one page of every kind of page the site has, the kinds derived from the built pages themselves
(`kind`: the template's blocks inside <main>), then more pages until every component of the site
(each tag with its classes) is on a page the phone audits; plus search results in each language and
'check all' on the sampled quizzes. Content wider than the screen is checked on every page on a
phone by tests/browser/test_scroll_regions.py (stricter than axe's scrollable-region-focusable: a
box that scrolls must be a named, focusable region or hold something focusable); quiz explanations,
hidden until 'check all' and so unseen there, get axe's scrollable-region-focusable on every quiz
here, in both schemes (pygments.css makes some code tokens bold in the dark one).
`test_the_phone_sample_has_a_page_of_every_template` fails if a template of the course gives no kind
of page of its own, so a kind cannot drop out of the sample unseen.

On a desktop the slide decks are left out: tests/browser/test_slides.py runs axe over every deck of
both languages in both schemes, as a whole document at its first slide, and then, in each language,
on a slide of every kind and on slides enough to hold every component of a slide (`axe_sample`, whose
coverage test_the_axe_sample_has_every_kind_and_every_component_of_slide_in_each_language checks),
after reveal.js has laid it out, at 1280x720, where reveal.js scales a slide exactly as at
1280x900 (the width binds in both: 1280 px with its 4% margin, scale 0.96); each deck audit here took
about 0.7 s, 22 s a run. `test_the_decks_the_desktop_audit_leaves_out_are_every_deck_of_the_site`
fails if its list of decks is not every deck of the site. The phone sample keeps its decks (a
different scale).

One browser context per screen, one page reused for every file, each state loaded once, audited in
light and, where `dark_states` says, in dark (switched in place: see test_axe_finds_no_violation_on_any_page):
on a desktop every page in light with every rule, and the dark scheme's colour rules on the phone
sample's pages and every scripted state; about 50 s for the desktop and 25 s for the phone on two
cores (loading each state once per scheme took a fifth more CPU, and the dark audit of every page on
a desktop a fifth more again).
"""

from __future__ import annotations

import functools
import re
import warnings
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from . import axe as axe_rules
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
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


class _Outline(HTMLParser):
    """The language of a page, the blocks directly inside its <main>, and every component of its body
    (a component: a tag with its classes, "pre.output")."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.lang, self.body = "", ""
        self.open: list[str] = []  # the elements open at this point, outermost first
        self.blocks: set[str] = set()
        self.components: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        name = tag + "".join(f".{c}" for c in sorted((attributes.get("class") or "").split()))
        if tag == "html":
            self.lang = attributes.get("lang") or ""
        if tag == "body":
            self.body = name
        if self.body:
            self.components.add(name)
        if self.open and self.open[-1] == "main":
            self.blocks.add(name)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        if tag in self.open:  # closes what HTML leaves implicitly closed (<p>, <li>) on the way
            while self.open.pop() != tag:
                pass


def outline(path: Path) -> _Outline:
    parsed = _Outline()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def kind(page: _Outline) -> tuple[str, ...]:
    """A page's kind: its body's class and the blocks directly inside its <main> (tag and classes).
    Lessons give (article.lesson, nav.pager), quizzes (article.quiz,), the glossary (dl.glossary, h1),
    a deck body.deck-page with (div.reveal,): one kind per template, and the root index, which adds a
    language chooser, one of its own."""
    return (page.body, *sorted(page.blocks))


@functools.cache  # each phone setting asks for it
def phone_sample(site: Path) -> list[Path]:
    """One page of every (language, kind), then, greedily, the page holding most components not yet
    in the sample until every component of the site is in it. Sorted paths: the same site gives the
    same sample."""
    pages = {path: outline(path) for path in sorted(site.rglob("*.html"))}
    kinds: dict[tuple, list[Path]] = defaultdict(list)
    for path, page in pages.items():
        kinds[(page.lang, kind(page))].append(path)
    chosen: list[Path] = []
    covered: set[str] = set()

    def most_new(candidates):
        return max(candidates, key=lambda path: len(pages[path].components - covered))

    for _, members in sorted(kinds.items()):
        chosen.append(most_new(members))
        covered |= pages[chosen[-1]].components
    everything = set().union(*(page.components for page in pages.values()))
    while covered != everything:
        chosen.append(most_new(pages))
        covered |= pages[chosen[-1]].components
    return chosen


# axe's rule that depends on the layout alone (content wider than its box), for quiz explanations on a
# phone, which are hidden until 'check all' (see the module's docstring)
SCROLL_ONLY = {"runOnly": {"type": "rule", "values": ["scrollable-region-focusable"]}, "resultTypes": ["violations"]}


def states(site, screen="desktop"):
    """(name, url, action, axe options or None for all the rules) for the pages as loaded, then the
    states that scripts produce: every page on a desktop, the phone sample on a phone."""
    if screen == "desktop":
        pages = [path for path in sorted(site.rglob("*.html")) if path not in decks_the_slide_test_audits(site)]
    else:
        pages = phone_sample(site)
    for path in pages:
        yield path.relative_to(site).as_posix(), path.as_uri(), None, None
    for lang, query in SEARCHES.items():

        def show_results(page, query=query):
            page.locator("#search-q").fill(query)
            page.locator("#search-results li").first.wait_for()

        yield (
            f"{lang}/search.html with results for {query!r}",
            (site / lang / "search.html").as_uri(),
            show_results,
            None,
        )
    for path in sorted(site.rglob("quiz-*.html")):
        name = f"{path.relative_to(site).as_posix()} after 'check all'"
        if path in pages:
            yield name, path.as_uri(), answer_everything, None
        else:
            yield f"{name} (scrollable-region-focusable)", path.as_uri(), answer_everything, SCROLL_ONLY


def dark_states(site: Path, screen: str) -> set[str]:
    """The names of the states audited in the dark scheme too: every state on a phone (the phone
    sample); on a desktop, the pages of the phone sample and every state a script makes. The dark
    scheme changes colours, text weight and box sizes only (test_the_dark_scheme_of_the_site_changes_only_colours_text_weight_and_box_sizes),
    the same on every page for the same component, so its colour rules are run on pages holding every
    kind of page and every component in each language, as on the phone, not on all of them: each
    lesson page took about a second more. Every page is audited in light with every rule."""
    everything = {name for name, *_ in states(site, screen)}
    if screen == "phone":
        return everything
    sampled = {path.relative_to(site).as_posix() for path in phone_sample(site)}
    return {name for name, _, action, _ in states(site, screen) if action is not None or name in sampled}


def decks_the_slide_test_audits(site: Path) -> set[Path]:
    from .test_slides import decks

    return {site / lang / "slides" / f"{lesson}.html" for lang, lesson in decks(site)}


def test_the_decks_the_desktop_audit_leaves_out_are_every_deck_of_the_site(site):
    """The desktop settings leave out the decks because test_slides.py audits each of them (see the
    module's docstring); that holds only while its list of decks is every deck page of the site."""
    built = {path for path in nonempty(sorted(site.rglob("*.html"))) if kind(outline(path))[0] == "body.deck-page"}
    assert built, "no deck in the site"
    assert decks_the_slide_test_audits(site) == built


def test_the_phone_sample_has_a_page_of_every_template(site):
    """Every page template of the course (templates/*.html but base.html, templates/slides/*.html) must
    give pages of a kind of their own in each language, so the phone sample has one of each; a template
    with no page, or two templates `kind` cannot tell apart, fail here."""
    from coursegen.loader import load_course
    from coursegen.pages import PACKAGE_TEMPLATES

    folder = REPO / "templates" if (REPO / "templates" / "base.html").is_file() else PACKAGE_TEMPLATES
    templates = [p.name for p in folder.glob("*.html") if p.name != "base.html"] + [
        f"slides/{p.name}" for p in (folder / "slides").glob("*.html")
    ]
    pages = [outline(path) for path in nonempty(sorted(site.rglob("*.html")), "pages of the built site")]
    languages = {page.lang for page in pages}
    assert len(languages) == len(load_course(REPO).course.languages), languages
    for lang in languages:
        kinds = {kind(page) for page in pages if page.lang == lang}
        assert len(kinds) >= len(templates), (
            f"{lang}: {len(kinds)} kinds of page for {len(templates)} templates {sorted(templates)}: {sorted(kinds)}"
        )
    sample = phone_sample(site)
    chosen = {(page.lang, kind(page)) for page in map(outline, sample)}
    assert chosen == {(page.lang, kind(page)) for page in pages}
    assert len(sample) < len(pages), "the phone sample is every page: nothing to gain from the sample"
    quizzes = [page for page in map(outline, sample) if ("article.quiz",) == kind(page)[1:]]
    assert {page.lang for page in quizzes} == languages, "no quiz of some language is checked on a phone"


def test_the_dark_scheme_of_the_site_changes_only_colours_text_weight_and_box_sizes(site):
    """What lets the dark settings run the colour rules (and scrollable-region-focusable) only, as the
    slide audit does (test_slides.DARK_RULES_BESIDES_COLOUR says why): every stylesheet of every page
    sets, for the dark scheme, colours (custom properties hold colours only), text weight, slant and
    decoration, and paddings, borders and line heights; no script reads the colour scheme."""
    from .test_slides import dark_rule_problems

    sheets: dict[Path, str] = {}
    texts: dict[str, str] = {}
    for path in nonempty(sorted(site.rglob("*.html")), "pages of the built site"):
        html = path.read_text(encoding="utf-8")
        for tag in re.findall(r"<link\b[^>]*>", html):
            if re.search(r"\brel=\"?stylesheet\b", tag):
                href = re.search(r'\bhref="([^"]+)"', tag).group(1)
                sheets[(path.parent / href).resolve()] = ""
        texts[f"{path.relative_to(site)} <style>"] = "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
        outside_css = re.sub(r"<style[^>]*>.*?</style>", "", html, flags=re.S)
        texts[path.relative_to(site).as_posix()] = outside_css
        for src in re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', html):
            texts[str((path.parent / src).resolve())] = (path.parent / src).read_text(encoding="utf-8")
    assert len(sheets) >= 2, sheets
    css = {sheet.name: sheet.read_text(encoding="utf-8") for sheet in sheets}
    css |= {where: text for where, text in texts.items() if where.endswith("<style>")}
    problems, declarations = [], 0
    for where, text in css.items():
        count, found = dark_rule_problems(where, text)
        declarations += count
        problems += found
    for where, text in texts.items():
        if not where.endswith("<style>"):
            problems += [f"{where}: {m}" for m in re.findall(r"prefers-color-scheme|matchMedia|colorScheme", text)]
    assert declarations > 10, "no dark scheme found: the site's stylesheets changed"
    assert problems == [], (
        "the dark scheme changes more than colours, text weight and box sizes: audit every rule in dark too "
        "(test_axe_finds_no_violation_on_any_page)\n" + "\n".join(problems)
    )


def load(page, url: str, action) -> None:
    """`url` in `page`, then `action(page)` when the state is one a script makes."""
    page.goto(url)
    if action:
        action(page)


def switch_scheme(page, scheme: str) -> None:
    """The page in `scheme` (light or dark) as if loaded in it: the media feature switched in place, and
    any CSS transition the switch starts finished at once, so no colour is read half-way."""
    page.emulate_media(color_scheme=scheme)
    finished = page.evaluate(
        """scheme => {
          document.getAnimations().filter(a => a instanceof CSSTransition).forEach(a => a.finish());
          return matchMedia(`(prefers-color-scheme: ${scheme})`).matches
            && document.getAnimations().every(a => !(a instanceof CSSTransition));
        }""",
        scheme,
    )
    assert finished, f"{page.url} did not switch to the {scheme} scheme"


@pytest.mark.xdist_alone  # a minute or two per screen: the two screens run side by side under pytest-xdist
@pytest.mark.parametrize("screen", SCREENS)
def test_axe_finds_no_violation_on_any_page(browser, site, axe, screen):
    """Each state is audited in the light scheme with every rule, then, if it is one of `dark_states`,
    switched to the dark scheme in place
    (the media feature changes and the page is not loaded again: no script reads the colour scheme, which
    test_the_dark_scheme_of_the_site_changes_only_colours_text_weight_and_box_sizes checks, and the
    transitions the switch starts are finished at once by `switch_scheme`; a deck, whose reveal.js reads
    colours as it lays the deck out, is loaded again in the dark scheme) and audited with
    only the rules whose outcome the scheme can change: the others read the DOM, ARIA and what is visible,
    the same in both. Loading each state once, not once per scheme, halves the pages this test loads."""
    from .test_slides import dark_scheme_options

    context = browser.new_context(viewport=SCREENS[screen], color_scheme="light")
    page = context.new_page()
    failures, audited, dark_options = [], {"light": 0, "dark": 0}, None
    in_dark = dark_states(site, screen)
    try:
        for name, url, action, options in nonempty(states(site, screen)):
            page.emulate_media(color_scheme="light")
            load(page, url, action)
            for scheme in ("light", "dark") if name in in_dark else ("light",):
                if scheme == "dark" and page.evaluate("typeof window.Reveal !== 'undefined'"):
                    page.emulate_media(color_scheme="dark")  # reveal.js reads colours as it lays a deck out:
                    load(page, url, action)  # a deck is loaded again in the dark scheme
                elif scheme == "dark":
                    switch_scheme(page, "dark")
                if scheme == "dark" and options is None:
                    dark_options = dark_options or dark_scheme_options(axe, page)
                scheme_options = dark_options if scheme == "dark" and options is None else options
                result = axe_rules.audit(axe, page, options=scheme_options)
                if scheme_options is None:
                    assert len(result["passes"]) > 10, f"{name}: axe ran almost no rule: {result['passes']}"
                elif scheme_options is dark_options:
                    ran = {rule["id"] for kind in ("passes", "violations", "incomplete") for rule in result[kind]}
                    assert "color-contrast" in ran, f"{name}: axe's colour contrast found no text to check"
                failures += axe_rules.describe(f"{name} [{scheme}, {screen}]", result)
                audited[scheme] += 1
    finally:
        context.close()
    assert audited["light"] == len(list(states(site, screen))) and audited["dark"] == len(in_dark), audited
    assert audited["dark"] >= 2 * 5 + 1, f"pages audited: {audited}: is the site built?"
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
