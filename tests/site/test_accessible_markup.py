"""Markup for assistive technology, as written by the build: blocks that may scroll sideways are
focusable groups named in the page's language, empty header cells are data cells, a formula heading
a column carries its text, and search forms have distinct names."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from coursegen.markdown import render
from tests.nonempty import nonempty

NAMES = {
    "en": {"code": "Code", "math": "Formula", "output": "Output", "table": "Table", "command": "Command"},
    "zh": {"code": "代码", "math": "公式", "output": "输出", "table": "表格", "command": "命令"},
}


class Elements(HTMLParser):
    """Every start tag of a page as (tag, attributes)."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(path: Path) -> list[tuple[str, dict]]:
    parser = Elements()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tags


def is_scroll_block(tag: str, attrs: dict) -> bool:
    classes = (attrs.get("class") or "").split()
    return tag == "pre" or ("math" in classes and "block" in classes) or "table-scroll" in classes


def test_code_formulas_and_outputs_are_focusable_groups_named_in_the_page_language(built_site):
    seen = {"en": set(), "zh": set()}
    for lang in nonempty(seen):
        for page in nonempty(sorted((built_site / lang).glob("*.html"))):
            for tag, attrs in nonempty(elements(page)):
                if not is_scroll_block(tag, attrs):
                    continue
                kind = attrs.get("data-region")
                assert kind in NAMES[lang], f"{page.name}: <{tag} {attrs}> is not marked as a region"
                assert attrs.get("tabindex") == "0" and attrs.get("role") == "group", f"{page.name}: {attrs}"
                assert attrs.get("aria-label") == NAMES[lang][kind], f"{page.name}: {attrs}"
                seen[lang].add(kind)
    assert {"code", "math"} <= seen["en"] | seen["zh"] and "code" in seen["zh"], seen


def test_tables_scroll_inside_a_named_group_and_the_empty_corner_is_a_data_cell():
    html = render("| | shape | used as |\n|---|---|---|\n| embedding | [V, D] | rows |\n")
    assert html.startswith('<div class="table-scroll" tabindex="0" role="group" data-region="table">\n<table>')
    assert html.rstrip().endswith("</table>\n</div>")
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert "<th></th>" not in head and "<td></td>" in head
    assert head.count("<th>") == 2


def test_a_header_cell_with_text_stays_a_header_cell():
    head = render("| a | b |\n|---|---|\n| 1 | 2 |\n").split("</thead>")[0]
    assert head.count("<th>") == 2 and "<td>" not in head


def test_a_formula_heading_a_column_carries_its_text_as_its_name():
    html = render("| $H$ | slopes |\n|---|---|\n| $2$ | $2^{-4}$ |\n")
    head, body = html.split("</thead>")
    assert '<math aria-label="H"' in head
    assert "aria-label" not in body.replace('data-region="table"', "")


def test_display_math_and_fenced_code_are_region_blocks():
    assert render("$$x^2$$\n").startswith('<div tabindex="0" role="group" data-region="math" class="math block">')
    assert '<pre class="highlight" tabindex="0" role="group" data-region="code">' in render("```python\nx = 1\n```\n")


def test_search_forms_have_distinct_names_on_every_page(built_site):
    for page in nonempty(sorted(built_site.rglob("*.html"))):
        names = [attrs.get("aria-label") for tag, attrs in elements(page) if attrs.get("role") == "search"]
        assert names and all(names), f"{page}: unnamed search form {names}"
        assert len(names) == len(set(names)), f"{page}: search forms share a name: {names}"
    on_search_page = [
        attrs.get("aria-label")
        for tag, attrs in elements(built_site / "zh" / "search.html")
        if attrs.get("role") == "search"
    ]
    assert on_search_page == ["快速搜索", "搜索课程"]
