"""The build's deck layout check (coursegen/slides/fit.py, layout.py), through `coursegen build`:
a deck made to overflow with something no rule can fit fails the build with the block's
`lesson.yaml:line`; a long list is split over "(continued)" slides instead; a lead-in sentence
goes with what it introduces; without Chromium the build still works and says once why the
check was skipped. The mini course is edited here and the decks are read back as HTML.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
CHROMIUM = Path("/usr/bin/chromium")
ANCHOR = "      - kind: code\n        id: first"

needs_chromium = pytest.mark.skipif(not CHROMIUM.is_file(), reason="needs /usr/bin/chromium")


def mini(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(FIXTURES / "mini", root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    return root


def insert_before_first_code(root: Path, blocks: str) -> int:
    """Put `blocks` (YAML) before the first code block; returns the line its first block starts at."""
    path = root / "content" / "lessons" / "alpha.yaml"
    text = path.read_text(encoding="utf-8")
    assert ANCHOR in text
    line = text[: text.index(ANCHOR)].count("\n") + 1
    path.write_text(text.replace(ANCHOR, blocks + ANCHOR, 1), encoding="utf-8")
    return line


BUILD = """
import sys
from unittest import mock
from coursegen import build, outputs
from coursegen.errors import ContentErrors
with mock.patch.object(outputs, "OUTPUTS", [*outputs.SITE_OUTPUTS, "coursegen.outputs.decks"]):
    try:
        build.build_site(sys.argv[1], sys.argv[1] + "/_site", progress=False)
    except ContentErrors as errors:
        print(errors, file=sys.stderr)
        sys.exit(1)
"""


def build(root: Path, **env: str) -> subprocess.CompletedProcess:
    """The site's pages and the decks of the mini course (its exercises are not buildable as a
    course of their own: the quiz pages and notebooks are left out, as in test_slides.py)."""
    return subprocess.run(
        [sys.executable, "-c", BUILD, str(root)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **env},
    )


def slides(root: Path, lang: str) -> list[tuple[str, str]]:
    """(id, text without tags) of every slide, speaker notes left out."""
    page = (root / "_site" / lang / "slides" / "alpha.html").read_text(encoding="utf-8")
    found = []
    for slide_id, body in re.findall(r'<section id="([^"]+)"[^>]*>(.*?)</section>', page, re.S):
        body = re.sub(r'<aside class="notes">.*?</aside>', "", body, flags=re.S)
        found.append((slide_id, " ".join(re.sub(r"<[^>]+>", " ", body).split())))
    return found


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_a_deck_made_to_overflow_fails_the_build_at_the_blocks_line(tmp_path):
    root = mini(tmp_path)
    rows = "\n".join(f"          | {n} | row {n} of a table far too long for one slide |" for n in range(40))
    table = f"          | n | what |\n          |---|---|\n{rows}\n"
    line = insert_before_first_code(root, f"      - kind: text\n        en: |\n{table}        zh: |\n{table}")
    result = build(root)
    assert result.returncode != 0, result.stdout + result.stderr
    located = [row for row in result.stderr.splitlines() if row.startswith(f"content/lessons/alpha.yaml:{line}:")]
    assert located, (line, result.stderr)
    assert "does not fit" in located[0] and "outside the slide" in located[0], located[0]
    assert not (root / "_site").exists()  # nothing was written


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_a_long_list_goes_on_over_continued_slides_and_a_lead_in_stays_with_its_code(tmp_path):
    root = mini(tmp_path)
    items_en = "".join(f"          - item number {n}, a bullet of a long list that says something\n" for n in range(24))
    items_zh = "".join(f"          - 第 {n} 项，一个很长的列表里的一条\n" for n in range(24))
    insert_before_first_code(
        root,
        f"      - kind: text\n        en: |\n{items_en}        zh: |\n{items_zh}"
        "      - kind: text\n        en: 'The table is built like this:'\n        zh: 表是这样建的：\n",
    )
    result = build(root)
    assert result.returncode == 0, result.stdout + result.stderr
    en, zh = slides(root, "en"), slides(root, "zh")
    assert [i for i, _ in en] == [i for i, _ in zh]
    holding = [text for _, text in en if "item number" in text]
    assert len(holding) >= 2 and all("(continued)" in text for text in holding[1:])
    shown = " ".join(holding)
    assert all(f"item number {n}," in shown for n in range(24))  # nothing dropped
    lead = next(text for _, text in en if "The table is built like this:" in text)
    assert "Build a table" in lead and "rows: 2" in lead  # the lead-in shares the slide of the code it introduces


@pytest.mark.slow
def test_without_chromium_the_build_works_and_says_why_the_check_was_skipped(tmp_path):
    root = mini(tmp_path)
    result = build(root, COURSEGEN_CHROMIUM=str(tmp_path / "no-chromium"))
    assert result.returncode == 0, result.stdout + result.stderr
    said = [row for row in result.stderr.splitlines() if "layout check skipped" in row]
    assert len(said) == 1 and "no-chromium" in said[0] and "is missing" in said[0], result.stderr
    assert (root / "_site" / "zh" / "slides" / "alpha.html").is_file()


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_an_exercise_statement_too_long_for_its_slide_goes_on_over_a_continued_one(tmp_path):
    """An exercise statement has no `slide:` key to shorten it: like a list, it continues at item ends."""
    root = mini(tmp_path)
    path = root / "content" / "lessons" / "alpha.yaml"
    text = path.read_text(encoding="utf-8")
    old = '    statement: {en: "Return `weight[input_ids]`.", zh: "返回 `weight[input_ids]`。"}\n'
    assert old in text
    en = "".join(
        f"        - rule {n}: the lookup must also hold for a batch of shape [B, S] and ids below V\n"
        for n in range(18)
    )
    zh = "".join(f"        - 规则 {n}：查表对形状为 [B, S] 的批次和小于 V 的编号也必须成立\n" for n in range(18))
    statement = f"    statement:\n      en: |\n        Return `weight[input_ids]`.\n\n{en}      zh: |\n        返回 `weight[input_ids]`。\n\n{zh}"
    path.write_text(text.replace(old, statement), encoding="utf-8")
    result = build(root)
    assert result.returncode == 0, result.stdout + result.stderr
    en_slides, zh_slides = slides(root, "en"), slides(root, "zh")
    assert [i for i, _ in en_slides] == [i for i, _ in zh_slides]
    holding = [body for slide_id, body in en_slides if slide_id.startswith("exercise-embedding_lookup")]
    assert len(holding) >= 2 and all("(continued)" in body for body in holding[1:]), holding
    shown = " ".join(holding)
    assert all(f"rule {n}:" in shown for n in range(18))  # nothing dropped
    assert "weight[input_ids]" in holding[0]


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_a_kept_page_measures_each_deck_as_a_new_page_does_and_sees_a_deck_rewritten_in_place(tmp_path):
    """The build's checker keeps its pages and navigates them from deck to deck: what it measures must
    not depend on the deck a page showed before, and a deck written again at the same path (a refit)
    is measured as it is now."""
    from coursegen.slides.layout import LayoutChecker

    root = mini(tmp_path)
    assert build(root).returncode == 0
    decks = {(lang, lesson): root / "_site" / lang / "slides" / f"{lesson}.html" for lang in ("en", "zh")
             for lesson in ("alpha", "beta")}  # fmt: skip
    kept = LayoutChecker.open()
    try:
        alone = dict(zip(decks, kept.measure_all(list(decks.values()))))  # four new pages, one deck each
        order = [("en", "alpha"), ("zh", "beta"), ("zh", "alpha"), ("en", "beta")]
        for one, two in zip(order, order[1:] + order[:1]):
            first, second = kept.measure_all([decks[one], decks[two]])
            assert (first, second) == (alone[one], alone[two]), (one, two)
        deck = decks[("en", "alpha")]
        html = deck.read_text(encoding="utf-8")
        end = html.index("</section>")
        deck.write_text(html[:end] + "<p>" + "A paragraph far too long. " * 400 + "</p>" + html[end:], encoding="utf-8")
        assert order[-1] == ("en", "beta")  # the last pair left the second page on en/alpha: measured again there
        rewritten = kept.measure_all([decks[order[-1]], deck])[1]
        assert rewritten.slides[0].overflow > 100 and alone[("en", "alpha")].slides[0].fits, rewritten.slides[0]
        late = deck.with_name("late.html")  # throws a second after it loads, when it is measured already
        late.write_text(
            html.replace("</body>", '<script>setTimeout(() => { throw new Error("late"); }, 1000)</script></body>')
        )
        kept.measure_all([late])
        time.sleep(1.5)
        assert kept.measure_all([decks[("en", "beta")]])[0] == alone[("en", "beta")]  # its error is not the next deck's
    finally:
        kept.close()
