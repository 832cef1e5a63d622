"""The handout cache of `coursegen slides --pdf` (coursegen/slides/pdf.py): a deck printed before,
unchanged, is copied from the course's cache byte for byte without starting Chromium; an edited
lesson reprints its decks only; and Chromium prints the same deck to the same bytes (what lets a
cached PDF stand for a fresh print).

Prints the mini course's decks (tests/site/fixtures/mini) with headless Chromium, in this process
(not in tests/browser, whose package-wide Playwright would refuse a second one)."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

import pytest

from coursegen import build, outputs
from coursegen.slides import pdf

MINI = Path(__file__).parent / "fixtures" / "mini"


def build_with_decks(root: Path) -> Path:
    with mock.patch.object(outputs, "OUTPUTS", [*outputs.SITE_OUTPUTS, "coursegen.outputs.decks"]):
        build.build_site(root, root / "_site", progress=False)
    return root / "_site"


@pytest.fixture
def course(tmp_path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(MINI, root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    return root


def printed(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.pdf"))}


@pytest.mark.slow
@pytest.mark.browser
def test_an_unchanged_deck_is_copied_from_the_cache_and_only_an_edited_lesson_is_reprinted(course, tmp_path):
    site = build_with_decks(course)
    first = pdf.print_decks(course, site, tmp_path / "first", languages=["en"])
    assert [p.name for p in first] == ["alpha.pdf", "beta.pdf"]
    cold = printed(tmp_path / "first")
    assert all(data.startswith(b"%PDF-") for data in cold.values())

    # the same decks again: byte-identical, and Chromium is never started
    refuse = mock.Mock(side_effect=AssertionError("Chromium started for an unchanged deck"))
    with mock.patch("playwright.sync_api.sync_playwright", refuse):
        pdf.print_decks(course, site, tmp_path / "again", languages=["en"])
    assert printed(tmp_path / "again") == cold and not refuse.called

    # Chromium itself prints the same deck to the same bytes (an empty cache: a real print)
    pdf.print_decks(course, site, tmp_path / "fresh", languages=["en"], cache_dir=tmp_path / "empty-cache")
    assert printed(tmp_path / "fresh") == cold

    # one lesson edited and the site rebuilt: that lesson's deck is printed again, the other copied
    lesson = course / "content" / "lessons" / "beta.yaml"
    text = lesson.read_text(encoding="utf-8")
    old = "en: Each pair is rotated by $p \\theta_i$."
    assert old in text
    lesson.write_text(text.replace(old, old[:-1] + ", every pair by its own angle.", 1), encoding="utf-8")
    site = build_with_decks(course)
    real = pdf._Chromium.print
    with mock.patch.object(pdf._Chromium, "print", autospec=True, side_effect=real) as printing:
        pdf.print_decks(course, site, tmp_path / "edited", languages=["en"])
        decks = [call.args[1].name for call in printing.call_args_list]
    assert decks == ["beta.html"]
    edited = printed(tmp_path / "edited")
    assert edited["en/alpha.pdf"] == cold["en/alpha.pdf"] and edited["en/beta.pdf"] != cold["en/beta.pdf"]


def test_the_print_key_covers_the_deck_what_it_loads_the_options_and_the_printer(tmp_path):
    site = tmp_path / "_site"
    deck = site / "en" / "slides" / "alpha.html"
    deck.parent.mkdir(parents=True)
    (site / "assets" / "fonts").mkdir(parents=True)
    (site / "assets" / "slides.css").write_text("@font-face { src: url('fonts/a.woff2') }", encoding="utf-8")
    (site / "assets" / "fonts" / "a.woff2").write_bytes(b"font")
    (site / "assets" / "slides.js").write_text("ready()", encoding="utf-8")
    (site / "figure.png").write_bytes(b"png")
    deck.write_text(
        '<link href="../../assets/slides.css" rel="stylesheet"><script src="../../assets/slides.js"></script>'
        '<img alt="" src="../../figure.png"><a href="../index.html">home</a>',
        encoding="utf-8",
    )
    key = pdf.print_key(site, deck, notes=False, printer="chromium 1")
    assert pdf.print_key(site, deck, notes=False, printer="chromium 1") == key
    assert pdf.print_key(site, deck, notes=True, printer="chromium 1") != key
    assert pdf.print_key(site, deck, notes=False, printer="chromium 2") != key
    loaded = [site / "assets" / n for n in ("slides.css", "fonts/a.woff2", "slides.js")] + [site / "figure.png", deck]
    for changed in loaded:
        before = changed.read_bytes()
        changed.write_bytes(before + b" ")
        assert pdf.print_key(site, deck, notes=False, printer="chromium 1") != key, changed
        changed.write_bytes(before)
    # a page the deck only links to, and an asset it does not load, leave the key alone
    (site / "en" / "index.html").write_text("home", encoding="utf-8")
    (site / "assets" / "search-index.js").write_text("index = []", encoding="utf-8")
    assert pdf.print_key(site, deck, notes=False, printer="chromium 1") == key
