"""Search, typed into the search page's box, finds "RoPE" and "位置编码" in the right lessons."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from tests.nonempty import nonempty

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def search(page, query: str) -> list[dict]:
    page.locator("#search-q").fill(query)
    page.locator("#search-results li").first.wait_for()
    return page.locator("#search-results li").evaluate_all(
        "items => items.map(li => ({href: li.querySelector('a').href, title: li.querySelector('a').textContent,"
        " lang: li.getAttribute('lang')}))"
    )


def target_file(href: str) -> Path:
    return Path(url2pathname(urlparse(href).path))


def mentions(html: str, query: str) -> bool:
    """The page contains the query, or (for Chinese, which search.js matches by character
    pairs so that "位置编码" also finds "位置的编码") every pair of adjacent characters of it."""
    html = html.lower()
    query = query.lower()
    if query in html:
        return True
    pairs = [query[i : i + 2] for i in range(len(query) - 1)]
    return any("\u4e00" <= ch <= "\u9fff" for ch in query) and all(pair in html for pair in pairs)


def lessons_whose_title_has(course, lang: str, query: str) -> set[str]:
    return {lesson.id for lesson in course.lessons if query.lower() in lesson.title.get(lang).lower()}


@pytest.mark.parametrize("lang, query", [("en", "RoPE"), ("zh", "位置编码")])
def test_search_ranks_the_lesson_named_by_the_query_first(open_page, site, course, lang, query):
    expected = lessons_whose_title_has(course, lang, query)
    assert expected, f"no {lang} lesson title contains {query!r}: the course changed, update this test"
    page = open_page(f"{lang}/search.html")
    results = search(page, query)
    pages = [target_file(r["href"]) for r in results]
    lesson_pages = {site / lang / f"{lesson_id}.html" for lesson_id in expected}
    assert pages[0] in lesson_pages, f"first result {results[0]} is not one of {sorted(expected)}"
    assert page.problems.all() == []


@pytest.mark.parametrize("lang, query", [("en", "RoPE"), ("zh", "位置编码")])
def test_every_search_result_links_to_an_existing_page_that_mentions_the_query(open_page, site, lang, query):
    page = open_page(f"{lang}/search.html")
    results = search(page, query)
    for result in nonempty(results):
        path = target_file(result["href"])
        assert path.is_file() and site in path.parents, result
        assert mentions(path.read_text(encoding="utf-8"), query), result


@pytest.mark.parametrize("lang, query, html_lang", [("en", "RoPE", "en"), ("zh", "位置编码", "zh-CN")])
def test_results_in_the_page_language_come_first(open_page, lang, query, html_lang):
    page = open_page(f"{lang}/search.html")
    langs = [r["lang"] for r in search(page, query)]
    assert langs[0] == html_lang
    assert langs == sorted(langs, key=lambda l: l != html_lang)


def lesson_of(site: Path, href: str, lang: str, lesson_ids: set[str]) -> str:
    """The lesson whose page `href` opens; it must be one of `lesson_ids` (several titles may name the query)."""
    pages = {site / lang / f"{lesson_id}.html": lesson_id for lesson_id in lesson_ids}
    assert target_file(href) in pages, f"{href} is not the page of one of {sorted(lesson_ids)}"
    return pages[target_file(href)]


def test_clicking_the_first_result_opens_that_lesson(open_page, site, course):
    expected = lessons_whose_title_has(course, "en", "RoPE")
    page = open_page("en/search.html")
    lesson_id = lesson_of(site, search(page, "RoPE")[0]["href"], "en", expected)
    with page.expect_navigation(wait_until="load"):
        page.locator("#search-results li a").first.click()
    assert target_file(page.url) == site / "en" / f"{lesson_id}.html"
    assert page.locator("main h1").inner_text().strip() == course.lesson(lesson_id).title.en.strip()


def test_the_header_search_box_opens_the_search_page_with_the_results(open_page, site, course):
    expected = lessons_whose_title_has(course, "en", "RoPE")
    page = open_page("en/search.html")
    lesson_id = lesson_of(site, search(page, "RoPE")[0]["href"], "en", expected)  # what the search page ranks first
    page = open_page(f"en/{course.lessons[0].id}.html")
    page.locator("#site-search-q").fill("RoPE")
    with page.expect_navigation(wait_until="load"):
        page.locator("#site-search-q").press("Enter")
    assert target_file(page.url) == site / "en" / "search.html"
    page.locator("#search-results li").first.wait_for()
    first = page.locator("#search-results li a").first.evaluate("a => a.href")
    assert target_file(first) == site / "en" / f"{lesson_id}.html"


# LaTeX command names that are no English words, also glued to a neighbour ("beginpmatrix"):
# none may reach a result snippet.
LATEX_WORDS = re.compile(
    r"\\|pmatrix|bmatrix|vmatrix|xrightarrow|operatorname|underbrace|mathbb|mathrm|cdot|ldots|"
    r"qquad|sqrt|\bfrac(?!tion)|\b(theta|omega|lambda)\b"
)


@pytest.mark.parametrize("lang, query", [("en", "rotation"), ("en", "softmax"), ("zh", "旋转"), ("zh", "位置编码")])
def test_result_snippets_show_math_as_text_not_latex(open_page, lang, query):
    page = open_page(f"{lang}/search.html")
    search(page, query)
    snippets = page.locator("#search-results li p").all_inner_texts()
    assert snippets
    leaked = [s for s in snippets if LATEX_WORDS.search(s)]
    assert leaked == []
