"""Slide decks (coursegen/slides/) of the mini course: what each deck holds, the default split
into slide and speaker notes, the `slide:` keys of the lesson YAML and their located errors,
determinism, and the vendored reveal.js.

The decks are read back with html.parser (not with the code that wrote them); expected values
come from the fixture YAML, from the lesson page the site writer made, and from the npm package
facts recorded in templates/assets/vendor/reveal/README.md.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock

import pytest

from coursegen import build, outputs
from coursegen.slides import REVEAL_VERSION
from coursegen.slides.split import first_sentence, gist
from tests.cli import run_cli
from tests.nonempty import nonempty

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
VENDOR = REPO / "templates" / "assets" / "vendor" / "reveal"

LONG_EN = (
    "Attention compares every query with every key. The scores are scaled by the square root of "
    "the head size, which keeps them in a range where softmax is not saturated at the start of "
    "training, e.g. with $d = 64$ the factor is $1/8$. Finally the weights mix the values."
)


class Course:
    """A writable copy of the mini course."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")

    def replace(self, relative: str, old: str, new: str) -> None:
        text = self.read(relative)
        assert old in text, f"{old!r} not in {relative}"
        (self.root / relative).write_text(text.replace(old, new, 1), encoding="utf-8")


def build_with_decks(root: Path) -> Path:
    """The site's own outputs and the decks (the quiz pages and notebooks are left out)."""
    with mock.patch.object(outputs, "OUTPUTS", [*outputs.SITE_OUTPUTS, "coursegen.outputs.decks"]):
        build.build_site(root, root / "_site", progress=False)
    return root / "_site"


def copy_mini(target: Path) -> Course:
    shutil.copytree(FIXTURES / "mini", target, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    return Course(target)


@pytest.fixture(scope="module")
def deck_site(tmp_path_factory) -> Path:
    return build_with_decks(copy_mini(tmp_path_factory.mktemp("decks") / "course").root)


class Deck(HTMLParser):
    """The slides of a deck: id, class, heading text, text on the slide, text of the notes."""

    def __init__(self) -> None:
        super().__init__()
        self.slides: list[dict] = []
        self.stack: list[str] = []
        self.where: list[str] = []  # "slide" | "notes" | "answer" | "heading"
        self.links: list[str] = []
        self.scripts: list[dict] = []
        self.html_lang = ""
        self.classes: list[set[str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        if tag == "html":
            self.html_lang = attrs.get("lang", "")
        if tag == "script":
            self.scripts.append(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "section":
            self.slides.append(
                {
                    "id": attrs.get("id"),
                    "class": classes,
                    "title": "",
                    "text": "",
                    "notes": "",
                    "answer": "",
                    "html": [],
                }
            )
        if self.slides:
            self.slides[-1]["html"].append(self.get_starttag_text() or "")
        mark = None
        if tag == "aside" and "notes" in classes:
            mark = "notes"
        elif "question-answer" in classes:
            mark = "answer"
        elif tag in ("h1", "h2") and self.slides and not self.slides[-1]["title"]:
            mark = "heading"  # the slide's title: its first heading
        self.stack.append(tag)
        self.where.append(mark or (self.where[-1] if self.where else "slide"))

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()
            self.where.pop()

    def handle_data(self, data):
        if not self.slides or not self.where:
            return
        slide, where = self.slides[-1], self.where[-1]
        key = {"heading": "title", "notes": "notes", "answer": "answer"}.get(where, "text")
        slide[key] += data
        if where == "answer":
            slide["text"] += data


def read_deck(site: Path, lang: str, lesson: str) -> Deck:
    deck = Deck()
    deck.feed((site / lang / "slides" / f"{lesson}.html").read_text(encoding="utf-8"))
    return deck


def squash(text: str) -> str:
    return " ".join(text.split())


# ---- what a deck holds ---------------------------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_every_lesson_has_a_deck_in_every_language_linked_from_its_page_and_the_index(deck_site):
    for lang, label in (("en", "Present this lesson"), ("zh", "演示本课")):
        for lesson in ("alpha", "beta"):
            assert (deck_site / lang / "slides" / f"{lesson}.html").is_file()
            page = (deck_site / lang / f"{lesson}.html").read_text(encoding="utf-8")
            assert f'href="slides/{lesson}.html">{label}</a>' in page
            index = (deck_site / lang / "index.html").read_text(encoding="utf-8")
            assert f'href="slides/{lesson}.html"' in index
    assert 'href="en/slides/alpha.html"' in (deck_site / "index.html").read_text(encoding="utf-8")


def test_a_deck_is_a_lecture_title_goals_sections_with_their_questions_terms_exercises_summary(deck_site):
    deck = read_deck(deck_site, "en", "alpha")
    ids = [slide["id"] for slide in deck.slides]
    assert ids[0] == "title"
    assert deck.slides[0]["title"] == "Tokens and vectors"
    assert "Ids index rows of an embedding table." in deck.slides[0]["text"]
    assert ids[1] == "goals" and "Look up rows of a table with" in deck.slides[1]["text"]
    assert ids[2] == "part-lookup" and deck.slides[2]["title"] == "The lookup"  # the section's divider
    assert "Part 1 of 1" in deck.slides[2]["text"]
    assert ids[3] == "s-lookup" and deck.slides[3]["title"] == "The lookup"
    # each code example and the figure on a slide of its own, in the section's order; the note
    # after the figure starts the next slide
    assert ids[3:8] == ["s-lookup", "s-lookup-2", "s-lookup-3", "s-lookup-4", "s-lookup-5"]
    assert [deck.slides[n]["title"].split(" (")[0] for n in range(3, 8)] == ["The lookup"] * 5
    assert "Build a table" in deck.slides[4]["text"] and "Ids pick rows." in deck.slides[6]["text"]
    assert "Position information comes later" in deck.slides[7]["text"]
    # the section's questions come after it (a concept check), then terms, exercises, the summary
    assert ids[8:] == [
        "question-lookup-shape",
        "question-rows",
        "key-terms",
        "exercise-embedding_lookup",
        "summary",
    ]
    assert "A trainable table of shape" in deck.slides[10]["text"]
    assert "Return weight[input_ids]." in squash(deck.slides[11]["text"])
    assert "embedding" in deck.slides[12]["text"]
    beta = [slide["id"] for slide in read_deck(deck_site, "en", "beta").slides]
    assert beta[0] == "title" and not any(i.startswith("question-") for i in beta)  # beta has no quiz
    zh = [slide["id"] for slide in read_deck(deck_site, "zh", "alpha").slides]
    assert zh == ids  # both languages: the same slides in the same order


def test_code_slides_show_the_recorded_output_the_lesson_page_shows(deck_site):
    page = (deck_site / "en" / "alpha.html").read_text(encoding="utf-8")
    outputs = re.findall(r"<samp>(.*?)</samp>", page, re.S)
    assert outputs == ["rows: 2\n", "row 1: [0.3, 0.4]\n"]
    deck = (deck_site / "en" / "slides" / "alpha.html").read_text(encoding="utf-8")
    assert re.findall(r"<samp>(.*?)</samp>", deck, re.S) == outputs
    assert '<span class="nb">print</span>' in deck  # highlighted like the site


def test_math_is_mathml_figures_are_named_svg_and_links_lead_out_of_the_slides_folder(deck_site):
    english = (deck_site / "en" / "slides" / "alpha.html").read_text(encoding="utf-8")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in english
    text = (deck_site / "zh" / "slides" / "alpha.html").read_text(encoding="utf-8")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in text
    for page in (english, text):
        assert "$" not in re.sub(r"<pre.*?</pre>", "", page, flags=re.S)
    assert re.search(r'<svg role="img" aria-label="一张高亮了两行的表。"', text)
    deck = read_deck(deck_site, "zh", "alpha")
    assert "../beta.html#rope" in deck.links and "../glossary.html#term-embedding" in deck.links
    assert "../quiz-alpha.html" in deck.links and "../alpha.html" in deck.links
    for link in deck.links:
        target = link.split("#")[0]
        if target.startswith("../quiz-"):
            continue  # written by the quiz pages' writer, left out of this build
        assert (deck_site / "zh" / "slides" / target).resolve().is_file(), link
    assert deck.html_lang == "zh-CN"
    assert "../../en/slides/alpha.html" in deck.links  # the language switch
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))


def slide_figure_box(fit: str) -> tuple[float, float]:
    """The px a figure may take on a 1280x720 slide fitted to `fit` ("" or "fit-N"): the width and
    max-height of `.figure-image svg` in the deck's stylesheet (a fitted slide's own max-height)."""
    css = (REPO / "templates" / "assets" / "slides.css").read_text(encoding="utf-8")
    rule = re.search(r"\.reveal \.figure-image svg \{([^}]*)\}", css).group(1)
    width = float(re.search(r"(?<![-\w])width:\s*([\d.]+)px", rule).group(1))
    height = float(re.search(r"max-height:\s*([\d.]+)px", rule).group(1))
    if fit:
        fitted = re.search(r"\.reveal \.%s \.figure-image svg \{\s*max-height:\s*([\d.]+)px" % fit, css)
        height = float(fitted.group(1))
    return width, height


def tick_label_px(svg: str, box: tuple[float, float]) -> list[float]:
    """The size in px on the slide of each tick label of a matplotlib SVG (text drawn as paths: a
    glyph group is scaled by font size / 100, in the SVG's pt), the SVG scaled into `box`."""
    width = float(re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', svg).group(1))
    height = float(re.search(r'<svg[^>]*\bheight="([\d.]+)pt"', svg).group(1))
    px_per_pt = min(box[0] / width, box[1] / height)
    starts = [m.start() for m in re.finditer(r'<g id="[^"]*[xy]tick_\d+">', svg)] + [len(svg)]
    sizes = []
    for start, end in zip(starts, starts[1:]):
        glyphs = re.search(r"scale\(([\d.]+) -[\d.]+\)", svg[start:end])
        if glyphs:
            sizes.append(float(glyphs.group(1)) * 100 * px_per_pt)
    return sizes


def test_figures_on_slides_are_drawn_for_the_slide_with_tick_labels_of_at_least_18_px(deck_site):
    measured = {}
    for lang in ("en", "zh"):
        for lesson in ("alpha", "beta"):
            page = (deck_site / lang / "slides" / f"{lesson}.html").read_text(encoding="utf-8")
            for slide, classes, body in re.findall(r'<section id="([^"]+)" class="([^"]*)"(.*?)</section>', page, re.S):
                fit = next((name for name in classes.split() if name.startswith("fit-")), "")
                for svg in re.findall(r'<div class="figure-image">(<svg.*?</svg>)', body, re.S):
                    measured[(lang, lesson, slide)] = min(tick_label_px(svg, slide_figure_box(fit)))
    assert len(measured) >= 4, measured  # both languages, both lessons' figures
    small = {where: round(px, 1) for where, px in measured.items() if px < 18}
    assert small == {}, f"tick labels under 18 px on the slide: {small}"


def test_decks_load_only_classic_scripts_from_the_site(deck_site):
    deck = read_deck(deck_site, "en", "alpha")
    sources = [script.get("src") for script in deck.scripts]
    assert sources == [
        "../../assets/vendor/reveal/reveal.js",
        "../../assets/vendor/reveal/plugin/notes.js",
        "../../assets/regions.js",
        "../../assets/slides.js",
    ]
    assert all("type" not in script for script in nonempty(deck.scripts))
    # printed notes are labelled in the deck's language
    assert deck.scripts[-1].get("data-notes-label") == "Speaker notes"
    assert read_deck(deck_site, "zh", "alpha").scripts[-1].get("data-notes-label") == "演讲者备注"
    for source in sources:
        assert (deck_site / "en" / "slides" / source).resolve().is_file(), source
    assert (deck_site / "assets" / "vendor" / "reveal" / "LICENSE").is_file()


def test_questions_are_the_quiz_with_the_answer_and_feedback_in_a_fragment(deck_site):
    for lang, expected in (
        ("en", ("[2, 5, 3]", "Each id becomes a row of 3 numbers.", "Answer: A True")),
        ("zh", ("[2, 5, 3]", "每个编号变成一行 3 个数。", "答案: A 正确")),
    ):
        deck = read_deck(deck_site, lang, "alpha")
        shape, rows = (next(s for s in deck.slides if s["id"] == f"question-{q}") for q in ("lookup-shape", "rows"))
        assert "[2, 5] 的编号" in shape["text"] if lang == "zh" else "Shape of a [2, 5] id batch" in shape["text"]
        assert expected[0] in shape["answer"] and expected[1] in squash(shape["answer"])
        assert expected[2] in squash(rows["answer"])
        assert any('class="question-answer fragment"' in tag for tag in shape["html"])
        # the wrong option's feedback is for the speaker
        if lang == "en":
            assert "No: it is a row." in rows["notes"]


# ---- the default split and the slide keys --------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_long_paragraph_stays_whole_and_a_slide_text_of_its_own_shortens_it(tmp_path):
    course = copy_mini(tmp_path / "course")
    zh_long = (
        "注意力把每个查询和每个键比较。分数要除以头维度的平方根，这样训练开始时 softmax 不会饱和，"
        "例如 $d = 64$ 时因子是 $1/8$，这一点很重要，也很容易忘记。最后用权重混合各个值。"
    )
    course.replace(
        "content/lessons/alpha.yaml",
        "      - kind: code\n        id: first",
        "      - kind: text\n        en: >-\n          "
        + LONG_EN
        + "\n        zh: >-\n          "
        + zh_long
        + "\n      - kind: text\n        en: Second paragraph, said in full on the page.\n"
        "        zh: 第二段，页面上完整写出。\n"
        "        slide: {text: {en: 'Second, short.', zh: 第二，简短。}}\n"
        "      - kind: code\n        id: first",
    )
    site = build_with_decks(course.root)
    for lang, first, rest, short, full in (
        (
            "en",
            "Attention compares every query with every key.",
            "Finally the weights mix the values.",
            "Second, short.",
            "Second paragraph, said in full on the page.",
        ),
        ("zh", "注意力把每个查询和每个键比较。", "最后用权重混合各个值。", "第二，简短。", "第二段，页面上完整写出。"),
    ):
        slides = read_deck(site, lang, "alpha").slides
        text = " ".join(squash(slide["text"]) for slide in slides)
        assert first in text and rest in text  # never cut to its first sentence
        holder = next(slide for slide in slides if short in squash(slide["text"]))
        assert full not in squash(holder["text"]) and full in squash(holder["notes"])


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_slide_keys_break_slides_reveal_step_by_step_keep_notes_and_omit(tmp_path):
    course = copy_mini(tmp_path / "course")
    course.replace(
        "content/lessons/alpha.yaml",
        "      - kind: code\n        id: first",
        "      - kind: text\n"
        "        en: |\n          - one\n          - two\n"
        "        zh: |\n          - 一\n          - 二\n"
        "        slide: {new: true, title: {en: Two steps, zh: 两步}, incremental: true,"
        " notes: {en: Say why., zh: 说明原因。}}\n"
        "      - kind: text\n        en: Only said aloud.\n        zh: 只口头说。\n        slide: {show: notes}\n"
        "      - kind: text\n        en: Not in the deck.\n        zh: 不在幻灯片中。\n        slide: {show: omit}\n"
        "      - kind: code\n        id: first",
    )
    site = build_with_decks(course.root)
    deck = read_deck(site, "en", "alpha")
    steps = next(slide for slide in deck.slides if slide["title"] == "Two steps")
    assert steps["id"].startswith("s-lookup-")
    assert sum('<li class="fragment">' in tag for tag in steps["html"]) == 2
    assert "Say why." in steps["notes"] and "Only said aloud." in steps["notes"]
    assert "Only said aloud." not in steps["text"]
    text = (site / "en" / "slides" / "alpha.html").read_text(encoding="utf-8")
    assert "Not in the deck." not in text
    assert "两步" in (site / "zh" / "slides" / "alpha.html").read_text(encoding="utf-8")
    # the lesson page shows every block as before
    page = (site / "en" / "alpha.html").read_text(encoding="utf-8")
    assert "Not in the deck." in page and "Only said aloud." in page


@pytest.mark.parametrize(
    ("slide_yaml", "needle", "message"),
    [
        ("slide: {bogus: true}", "bogus", "unknown field 'bogus' (expected one of: new, title, show"),
        ("slide: {show: sometimes}", "sometimes", "'auto', 'full', 'notes' or 'omit'"),
        ("slide: {title: {en: T, zh: T}}", "title: {en: T", "add 'new: true'"),
        (
            "slide: {show: omit, incremental: true}",
            "show: omit",
            "'new', 'incremental', 'text' and 'columns' do nothing",
        ),
        ("slide: {lines: 'one to three'}", "lines", "String should match pattern"),
        ("slide: {columns: true, new: true}", "columns", "cannot also start a new slide"),
        ("slide: {text: {en: Only English.}}", "text: {en: Only English.}", "zh"),
        ("slide: {notes: {en: Only English.}}", "notes: {en: Only English.}", "zh"),
        ("slide: {notes: {en: 'See [x](lesson:nowhere).', zh: 'x'}}", "lesson:nowhere", "nowhere"),
    ],
)
def test_coursegen_check_reports_a_bad_slide_key_at_its_line(tmp_path, slide_yaml, needle, message):
    course = copy_mini(tmp_path / "course")
    course.replace(
        "content/lessons/alpha.yaml",
        "        style: tip\n",
        f"        style: tip\n        {slide_yaml}\n",
    )
    text = course.read("content/lessons/alpha.yaml")
    line = text[: text.index(f"        {slide_yaml}")].count("\n") + 1
    assert needle in slide_yaml
    result = run_cli("check", "--root", course.root, cwd=course.root)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = [row for row in result.stderr.splitlines() if row.startswith("content/lessons/alpha.yaml:")]
    assert any(row.startswith(f"content/lessons/alpha.yaml:{line}:") and message in row for row in lines), (
        line,
        result.stderr,
    )


@pytest.mark.parametrize(
    ("block_start", "slide_yaml", "message"),
    [
        ("      - kind: note", "slide: {lines: '1-2'}", "this block has no code"),
        (
            "      - kind: code\n        id: first",
            "slide: {lines: '1-40'}",
            "slide line 3 is not in the code (it has 2 lines)",
        ),
        ("      - kind: code\n        id: first", "slide: {text: {en: a, zh: b}}", "a code block has none"),
    ],
)
def test_a_slide_key_that_does_not_fit_its_block_is_reported_at_the_block(tmp_path, block_start, slide_yaml, message):
    course = copy_mini(tmp_path / "course")
    course.replace("content/lessons/alpha.yaml", block_start + "\n", block_start + f"\n        {slide_yaml}\n")
    text = course.read("content/lessons/alpha.yaml")
    line = text[: text.index(block_start + f"\n        {slide_yaml}")].count("\n") + 1
    result = run_cli("check", "--root", course.root, cwd=course.root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert any(
        row.startswith(f"content/lessons/alpha.yaml:{line}:") and message in row for row in result.stderr.splitlines()
    ), (line, result.stderr)


def test_sentences_never_end_at_an_abbreviation_or_inside_math():
    from coursegen.slides.split import sentences

    text = "Shaw et al. (2018) add a bias, e.g. per offset. See Fig. 2 and $a. B$ there. Then: done."
    assert sentences(text, "en") == [
        "Shaw et al. (2018) add a bias, e.g. per offset.",
        "See Fig. 2 and $a. B$ there.",
        "Then: done.",
    ]
    assert sentences("第一句。第二句有 $x. Y$ 公式！第三", "zh") == ["第一句。", "第二句有 $x. Y$ 公式！", "第三"]


def test_first_sentence_keeps_math_abbreviations_and_short_text_whole():
    assert first_sentence("Short. Text.", "en") == "Short. Text."
    assert first_sentence(LONG_EN, "en") == "Attention compares every query with every key."
    with_math = "The value $x = 1. 5$ is " + "long " * 40 + "here. And more " + "words " * 20 + "."
    assert first_sentence(with_math, "en").endswith("here.")
    abbreviation = "Use a table, e.g. The one below. " + "Then more words " * 20 + "."
    assert first_sentence(abbreviation, "en") == "Use a table, e.g. The one below."
    unbalanced = "A **bold claim. That ends later** and " + "goes on " * 30 + "."
    assert first_sentence(unbalanced, "en") == unbalanced
    assert gist("# Heading\n\n$$x$$\n", "en") == {"blocks": ["# Heading", "$$x$$"], "shortened": False}


# ---- determinism and the vendored library ----------------------------------------------------------


def tree(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_decks_are_byte_identical_when_built_again_from_a_fresh_cache(deck_site, tmp_path):
    again = copy_mini(tmp_path / "course")
    shutil.copytree(deck_site.parent / ".coursegen-cache" / "figures", again.root / ".coursegen-cache" / "figures")
    second = build_with_decks(again.root)
    first_decks = {k: v for k, v in tree(deck_site).items() if "/slides/" in k}
    assert first_decks and first_decks == {k: v for k, v in tree(second).items() if "/slides/" in k}


def test_the_vendored_reveal_is_the_recorded_npm_version_unchanged():
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(f"# reveal.js {REVEAL_VERSION} (vendored)")
    assert f"npm pack reveal.js@{REVEAL_VERSION}" in readme
    core = (VENDOR / "reveal.js").read_text(encoding="utf-8")
    versions = set(re.findall(r"=`(\d+\.\d+\.\d+)`;function", core))
    assert versions == {REVEAL_VERSION}, versions
    for name in ("reveal.js", "reveal.css", "plugin/notes.js"):
        digest = hashlib.sha256((VENDOR / name).read_bytes()).hexdigest()
        assert f"| `{name}` |" in readme and digest in readme, name
    licence = (VENDOR / "LICENSE").read_text(encoding="utf-8")
    assert "Hakim El Hattab" in licence and "Permission is hereby granted, free of charge" in licence
    for name in ("reveal.js", "plugin/notes.js"):
        code = (VENDOR / name).read_text(encoding="utf-8")
        assert "fetch(" not in code and "import(" not in code, name


# ---- coursegen slides: what it refuses before printing anything ------------------------------------


def test_coursegen_slides_refuses_bad_requests_and_leaves_the_output_folder_alone(tmp_path):
    course = copy_mini(tmp_path / "course")
    root = str(course.root)
    nothing = run_cli("slides", "--root", root, "-o", str(tmp_path / "out"), cwd=course.root)
    assert nothing.returncode == 2 and "add --pdf" in nothing.stderr
    unknown = run_cli(
        "slides", "--root", root, "--pdf", "--lesson", "gamma", "-o", str(tmp_path / "out"), cwd=course.root
    )
    assert unknown.returncode == 1 and "--lesson gamma: no such lesson (known: alpha, beta)" in unknown.stderr
    assert not (tmp_path / "out").exists()
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    refused = run_cli("slides", "--root", root, "--pdf", "-o", str(precious), cwd=course.root)
    assert refused.returncode == 1 and "refusing to replace this folder: it holds notes.txt" in refused.stderr
    assert [p.name for p in precious.iterdir()] == ["notes.txt"]
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_pdf_dates_and_document_id_are_fixed_without_moving_any_byte():
    from coursegen.slides.pdf import normalise_pdf

    def pdf(stamp: bytes, ident: bytes) -> bytes:
        return (
            b"%PDF-1.4\n1 0 obj\n<</Producer (Skia/PDF m156)\n/CreationDate (D:" + stamp + b"+00'00')\n"
            b"/ModDate (D:"
            + stamp
            + b"+00'00')>>\nendobj\ntrailer\n<</Size 2\n/Root 1 0 R\n/ID [<"
            + ident
            + b"> <"
            + ident
            + b">]>>\n%%EOF\n"
        )

    first = normalise_pdf(pdf(b"20261201203000", b"0A" * 16))
    second = normalise_pdf(pdf(b"20270615101010", b"FF" * 16))
    assert first == second and len(first) == len(pdf(b"20261201203000", b"0A" * 16))
    assert b"D:20261201203000" not in first and b"<" + b"0A" * 16 + b">" not in first


def test_a_list_item_keeps_its_formula_and_second_paragraph_on_the_slide():
    source = (
        "- **PI** scales the positions.\n"
        "- **NTK-aware scaling** changes the base:\n\n"
        "  $$b' = b \\cdot s^{d/(d-2)}$$\n\n"
        "  pair 0 is unchanged.\n"
        "- **YaRN** blends the two."
    )
    shown = "\n".join(gist(source, "en", whole=True)["blocks"])
    assert "$$b' = b \\cdot s^{d/(d-2)}$$" in shown and "pair 0 is unchanged." in shown
    assert "**YaRN** blends the two." in shown
