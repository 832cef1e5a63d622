"""Slide Chinese (issue 36, item 4): on every deck of the first course, where the English slide has
a bullet (a list item of one sentence or a phrase), the Chinese slide's bullet is a phrase too: it
does not end with a full stop "。" and is not several sentences. A bullet that is several sentences
in English may be several in Chinese, never more.

The decks are the build's own slide model (coursegen.slides.deck.deck_slides, no browser, no quiz
variants: the questions are the quiz's, not slide text); the items are read back with html.parser
and the sentences are counted here, apart from the deck's own splitter.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[2]

# An English sentence ends at . ! ? (a closing bracket or quote may follow) before a space or the end;
# "e.g." and "i.e." end none.
EN_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bet al)[.!?][)\"”’]?(?=\s|$)")
ZH_END = re.compile(r"[。！？]")


class Items(HTMLParser):
    """The text of every innermost list item of a slide body (MathML read as its characters)."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[str] = []
        self.open: list[list[str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "li":
            self.open.append([])

    def handle_endtag(self, tag):
        if tag == "li" and self.open:
            text = "".join(self.open.pop())
            if "\x00nested" not in text:
                self.items.append(" ".join(text.split()))
            if self.open:
                self.open[-1].append("\x00nested")

    def handle_data(self, data):
        if self.open:
            self.open[-1].append(data)


def items(body: list[str]) -> list[str]:
    parser = Items()
    parser.feed("".join(body))
    return parser.items


def deck_bullets() -> list[tuple[str, str, str, str]]:
    """(lesson, slide id, en item, zh item) of every list item of every deck of the first course."""
    from coursegen.loader import load_course
    from coursegen.slides.deck import deck_slides

    loaded = load_course(REPO)
    env = SimpleNamespace(globals={})  # figures and outputs are not text: their slides hold no list
    found = []
    for lesson in loaded.lessons:
        en = deck_slides(loaded, lesson, "en", env)
        zh = deck_slides(loaded, lesson, "zh", env)
        assert [s.id for s in en] == [s.id for s in zh], f"{lesson.id}: the en and zh decks differ in their slides"
        for en_slide, zh_slide in zip(en, zh):
            en_items, zh_items = items(en_slide.body), items(zh_slide.body)
            assert len(en_items) == len(zh_items), f"{lesson.id} {zh_slide.id}: {en_items} / {zh_items}"
            found += [(lesson.id, zh_slide.id, e, z) for e, z in zip(en_items, zh_items)]
    return found


def test_a_chinese_bullet_is_a_phrase_where_the_english_is_a_bullet():
    bullets = deck_bullets()
    lessons = {lesson for lesson, *_ in bullets}
    assert len(lessons) == 8 and len(bullets) > 100, f"too few bullets to prove anything: {len(bullets)}"
    wrong = []
    for lesson, slide, en, zh in bullets:
        en_sentences = len(EN_END.findall(en)) or 1
        zh_sentences = len(ZH_END.findall(re.sub(r"[。！？][）)”」]*$", "", zh))) + 1
        if en_sentences == 1 and zh.endswith("。"):
            wrong.append(f"{lesson} {slide}: a sentence where the en is a bullet: {zh[:70]!r} (en {en[:50]!r})")
        elif zh_sentences > en_sentences:
            wrong.append(f"{lesson} {slide}: {zh_sentences} sentences, en {en_sentences}: {zh[:70]!r}")
    assert wrong == [], "\n".join(wrong)


def test_a_one_sentence_chinese_bullet_is_checked_and_caught():
    """The test above reads what it claims to: a one-sentence zh item with 。 is counted as wrong."""
    assert items(["<ul><li>能计算 <em>ALiBi</em> 斜率。</li><li>a<ul><li>b</li></ul></li></ul>"]) == [
        "能计算 ALiBi 斜率。",
        "b",
    ]
