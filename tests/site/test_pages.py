"""What the built pages contain: layout, language, math, code, figures, navigation, pages of issue 8."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from tests.nonempty import nonempty


def read(site: Path, page: str) -> str:
    return (site / page).read_text(encoding="utf-8")


class Outline(HTMLParser):
    """Collects headings, element ids, links and scripts of a page."""

    def __init__(self):
        super().__init__()
        self.headings: list[int] = []
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.scripts: list[dict] = []
        self.stylesheets: list[str] = []
        self.html_lang = None
        self.svgs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.html_lang = attrs.get("lang")
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
        if tag == "script":
            self.scripts.append(attrs)
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.stylesheets.append(attrs["href"])
        if tag == "svg":
            self.svgs.append(attrs)


def outline(site: Path, page: str) -> Outline:
    parser = Outline()
    parser.feed(read(site, page))
    return parser


def all_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def test_every_page_declares_its_language(built_site):
    for page in nonempty(all_pages(built_site)):
        expected = "zh-CN" if page.startswith("zh/") else "en"
        assert outline(built_site, page).html_lang == expected, page


def test_language_switch_links_to_the_same_page_in_the_other_language(built_site):
    assert 'href="../zh/alpha.html"' in read(built_site, "en/alpha.html")
    assert 'href="../en/alpha.html"' in read(built_site, "zh/alpha.html")
    assert 'href="../en/glossary.html"' in read(built_site, "zh/glossary.html")


def test_lesson_pages_link_to_previous_and_next_lessons(built_site):
    alpha, beta = read(built_site, "en/alpha.html"), read(built_site, "en/beta.html")
    assert 'rel="next" href="beta.html"' in alpha and 'rel="prev"' not in alpha
    assert 'rel="prev" href="alpha.html"' in beta and 'rel="next"' not in beta


def test_lesson_page_has_a_table_of_contents_of_its_sections(built_site):
    page = outline(built_site, "en/alpha.html")
    assert "#lookup" in page.links and "lookup" in page.ids


def test_math_is_rendered_as_mathml(built_site):
    page = read(built_site, "en/alpha.html")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in page
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in page
    assert "$" not in re.sub(r"<pre.*?</pre>", "", page, flags=re.S)


def test_code_is_highlighted_with_pygments_classes(built_site):
    page = read(built_site, "en/alpha.html")
    assert '<span class="nb">print</span>' in page
    assert ".highlight .nb" in read(built_site, "assets/pygments.css")
    assert "prefers-color-scheme: dark" in read(built_site, "assets/pygments.css")


def test_internal_links_become_relative_urls(built_site):
    links = outline(built_site, "en/alpha.html").links
    assert "beta.html#rope" in links
    assert "glossary.html#term-embedding" in links
    assert "quiz-alpha.html" in links


def test_figures_are_inline_svg_with_an_accessible_name_and_a_caption(built_site):
    page = read(built_site, "zh/alpha.html")
    svgs = outline(built_site, "zh/alpha.html").svgs
    assert len(svgs) == 1
    assert svgs[0]["role"] == "img" and svgs[0]["aria-label"] == "一张高亮了两行的表。"
    assert "<figcaption>编号挑选行。</figcaption>" in page


def test_figure_ids_are_unique_within_a_page(built_site):
    for page in nonempty(all_pages(built_site)):
        ids = re.findall(r'\bid="([^"]+)"', read(built_site, page))
        assert len(ids) == len(set(ids)), page


def test_lesson_page_shows_key_terms_exercises_notebook_and_quiz(built_site):
    page = read(built_site, "en/alpha.html")
    assert 'id="term-embedding"' in page
    assert 'id="exercise-embedding_lookup"' in page
    assert 'href="../notebooks/en/alpha.ipynb"' in page
    assert 'href="quiz-alpha.html"' in page
    assert "quiz-beta.html" not in read(built_site, "en/beta.html")


def test_glossary_lists_every_term_linking_to_where_it_is_taught(built_site):
    page = read(built_site, "zh/glossary.html")
    assert 'id="term-embedding"' in page and 'id="term-rope"' in page
    assert 'href="alpha.html#term-embedding"' in page
    assert 'href="beta.html#term-rope"' in page
    assert "嵌入" in page


def test_exercises_page_lists_statements_notebooks_the_self_check_and_the_route(built_site):
    page = read(built_site, "en/exercises.html")
    assert 'id="exercise-embedding_lookup"' in page and 'id="exercise-apply_rope"' in page
    assert 'href="../notebooks/en/beta.ipynb"' in page
    # students have the site and the notebooks, not the grader: no instructor command
    assert "coursegen" not in page.split("<main", 1)[-1].split("</main>", 1)[0]
    assert "run the self-check cell below it" in page and "<code>[PASS]</code>" in page
    # the fixture course names no route: the default one, upload where the course says
    assert "Upload your notebook" in page and "submission page" in page


def test_exercises_page_shows_points_read_from_the_checks(course):
    from coursegen.build import build_site

    checks = course.root / "grader" / "checks"
    checks.mkdir(parents=True)
    (checks / "test_rope.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.exercise('apply_rope')\n@pytest.mark.points(3)\ndef test_a(candidate):\n    pass\n\n"
        "@pytest.mark.exercise('apply_rope')\n@pytest.mark.hidden\ndef test_b(candidate):\n    pass\n"
    )
    build_site(course.root, course.root / "_site", progress=False)
    page = read(course.root / "_site", "en/exercises.html")
    assert "(4 points)" in page


def test_search_index_has_lessons_sections_terms_and_quizzes_in_both_languages(built_site):
    text = read(built_site, "assets/search-index.js")
    assert text.startswith("window.COURSEGEN_SEARCH_INDEX = ")
    entries = json.loads(text[len("window.COURSEGEN_SEARCH_INDEX = ") :].rstrip().rstrip(";"))
    kinds = {(e["lang"], e["kind"]) for e in entries}
    for lang in ("en", "zh"):
        for kind in ("lesson", "section", "term", "quiz"):
            assert (lang, kind) in kinds
    rope = [e for e in entries if e["lang"] == "zh" and e["kind"] == "section" and e["url"] == "zh/beta.html#rope"]
    assert rope and rope[0]["title"] == "RoPE 位置编码"


def test_search_page_loads_the_index_with_classic_scripts(built_site):
    scripts = outline(built_site, "en/search.html").scripts
    sources = [s.get("src") for s in scripts]
    assert sources == ["../assets/regions.js", "../assets/search-index.js", "../assets/search.js"]
    assert all("type" not in s for s in nonempty(scripts))


def test_headings_start_at_h1_and_never_skip_a_level(built_site):
    for page in nonempty(all_pages(built_site)):
        levels = outline(built_site, page).headings
        assert levels and levels[0] == 1 and levels.count(1) == 1, page
        for before, after in zip(levels, levels[1:]):
            assert after <= before + 1, f"{page}: h{before} followed by h{after}"


def test_every_page_has_a_skip_link_to_its_main_content(built_site):
    for page in nonempty(all_pages(built_site)):
        parsed = outline(built_site, page)
        assert parsed.links[0] == "#main" and "main" in parsed.ids, page


def test_stylesheet_has_dark_theme_focus_styles_and_print_rules(built_site):
    css = read(built_site, "assets/style.css")
    assert "@media (prefers-color-scheme: dark)" in css
    assert ":focus-visible" in css
    assert "@media print" in css


PAGE_BUDGET_BYTES = 300 * 1024


def test_every_page_is_under_300_kb_without_its_figures(built_site):
    for page in nonempty(all_pages(built_site)):
        html = read(built_site, page)
        without_figures = re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S)
        parsed = outline(built_site, page)
        resources = parsed.stylesheets + [script["src"] for script in parsed.scripts]
        linked = sum((built_site / page).parent.joinpath(href).stat().st_size for href in resources)
        assert len(without_figures.encode()) + linked < PAGE_BUDGET_BYTES, page


def test_no_page_requests_anything_outside_the_site(built_site):
    for page in nonempty(all_pages(built_site)):
        html = read(built_site, page)
        assert not re.search(r'(src|href)="(https?:)?//', html.replace('xmlns="http', "")), page
        for script in outline(built_site, page).scripts:
            assert "type" not in script and "src" in script, page
    for asset in nonempty(sorted(path for path in (built_site / "assets").rglob("*") if path.is_file())):
        if asset.suffix not in (".js", ".css"):
            continue  # the vendored library's LICENSE and README
        text = asset.read_text(encoding="utf-8")
        assert "fetch(" not in text and "import(" not in text and "@import" not in text, asset.name
        assert not re.search(r"url\((['\"])?(https?:)?//", text), asset.name


def test_local_links_point_to_files_of_the_site(built_site):
    produced_by_other_parts = ("../notebooks/", "quiz-", "slides/")
    for page in nonempty(all_pages(built_site)):
        folder = (built_site / page).parent
        for href in nonempty(outline(built_site, page).links):
            target = href.split("#")[0]
            if (
                not target
                or target.startswith(("http:", "https:", "mailto:"))
                or target.removeprefix("en/").removeprefix("zh/").startswith(produced_by_other_parts)
            ):
                continue
            assert (folder / target).is_file(), f"{page} -> {href}"


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    channels = [int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted([_luminance(a), _luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def theme_variables(css: str) -> dict[str, dict[str, str]]:
    light_block = re.search(r":root \{(.*?)\n\}", css, flags=re.S).group(1)
    dark_block = re.search(r"@media \(prefers-color-scheme: dark\) \{\s*:root \{(.*?)\}", css, flags=re.S).group(1)
    parse = lambda block: dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6})", block))  # noqa: E731
    light = parse(light_block)
    return {"light": light, "dark": {**light, **parse(dark_block)}}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_colours_pass_wcag_aa_contrast(built_site, theme):
    colours = theme_variables(read(built_site, "assets/style.css"))[theme]
    for text in ("fg", "muted", "link", "link-visited"):
        for background in ("bg", "surface"):
            ratio = contrast(colours[text], colours[background])
            assert ratio >= 4.5, f"{theme}: --{text} on --{background} is {ratio:.2f}:1"
    assert contrast(colours["focus"], colours["bg"]) >= 3.0  # focus ring: non-text contrast


@pytest.mark.parametrize("style_name", ["default", "github-dark"])
def test_code_colours_pass_wcag_aa_contrast(style_name):
    from pygments.styles import get_style_by_name
    from pygments.token import Whitespace

    style = get_style_by_name(style_name)
    for token, rule in nonempty(style):
        if rule["color"] and token not in Whitespace:
            ratio = contrast("#" + rule["color"], style.background_color)
            assert ratio >= 4.5, f"{style_name}: {token} is {ratio:.2f}:1"


def test_a_page_title_names_the_course_once(built_site):
    """The index pages' own title is the course's: it is not repeated after a separator; every
    other page is "its title · the course"."""
    import re

    def title(page: str) -> str:
        found = re.search(r"<title>(.*?)</title>", read(built_site, page), re.S)
        assert found, page
        return found.group(1)

    assert title("index.html") == "Mini course"
    assert title("en/index.html") == "Mini course"
    assert title("zh/index.html") == "迷你课程"
    assert title("en/glossary.html").endswith(" · Mini course") and title("en/glossary.html").count("Mini course") == 1
