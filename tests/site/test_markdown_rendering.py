"""Markdown details: math in table cells, Chinese line breaks, function names in MathML, search text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from coursegen.markdown import plain_text, readable_math, render, unconverted_math
from coursegen.mathml import to_mathml

TABLE = "| formula | value |\n|---|---|\n{row}\n"


def _cells(html: str) -> list[str]:
    return re.findall(r"<td>(.*?)</td>", html, flags=re.S)


def test_math_at_the_start_of_a_table_cell_ending_with_a_digit_becomes_mathml():
    cells = _cells(render(TABLE.format(row="| $x$ = 2 | 1 |")))
    assert cells[0].startswith('<span class="math inline"><math')
    assert "$" not in cells[0]


def test_math_alone_in_a_table_cell_next_to_a_numeric_cell_becomes_mathml():
    cells = _cells(render(TABLE.format(row="| 3 | $d_{model}$ |")))
    assert "<math" in cells[1] and "$" not in cells[1]


def test_a_digit_touching_the_dollar_still_prevents_math():
    assert "<math" not in render("a $x$2 b")
    assert "<math" not in render("a 1$x$ b")


def test_unconverted_math_is_found_with_its_offset():
    source = "fine $a$ here\n\nbroken $x$2 and $y$"
    found = unconverted_math(source)
    assert [offset for offset, _ in found] == [source.index("$x$2")]
    assert found[0][1].startswith("$x$2")


def test_a_single_dollar_and_escaped_dollars_are_not_unconverted_math():
    assert unconverted_math("costs $5 today") == []
    assert unconverted_math(r"costs \$5 and \$10") == []
    assert unconverted_math("code `$a$` and `$b$`") == []


def test_unconverted_math_in_a_table_cell_is_found():
    source = TABLE.format(row="| $x$2 | $y$ |")
    assert [offset for offset, _ in unconverted_math(source)] == [source.index("$x$2")]


def test_a_line_break_between_chinese_characters_renders_as_nothing():
    assert render("第一行\n第二行") == "<p>第一行第二行</p>\n"


def test_a_line_break_after_chinese_punctuation_renders_as_nothing():
    assert render("句子，\n继续。\n“引号”") == "<p>句子，继续。“引号”</p>\n"


def test_a_line_break_between_chinese_characters_through_emphasis_renders_as_nothing():
    assert render("中文\n**粗体**\n中文") == "<p>中文<strong>粗体</strong>中文</p>\n"


def test_a_line_break_between_latin_words_stays_a_space():
    assert render("first line\nsecond line") == "<p>first line\nsecond line</p>\n"


def test_a_line_break_between_chinese_and_latin_stays_a_space():
    assert render("中文\nEnglish") == "<p>中文\nEnglish</p>\n"


def test_search_text_joins_chinese_lines_without_a_space():
    assert plain_text("第一行\n第二行") == "第一行第二行"


MATHML = "{http://www.w3.org/1998/Math/MathML}"


def _row(latex: str) -> list[tuple[str, str]]:
    """(tag, text) of the top-level row of a formula's MathML."""
    math = ET.fromstring(to_mathml(latex, display=False))
    row = math[0]
    return [(child.tag.replace(MATHML, ""), child.text or "") for child in row]


def test_a_function_name_and_a_plain_operand_are_separated_by_function_application_and_a_thin_space():
    assert _row(r"\sin 1") == [("mi", "sin"), ("mo", "\u2061"), ("mspace", ""), ("mn", "1")]


def test_the_thin_space_is_a_sixth_of_an_em():
    math = ET.fromstring(to_mathml(r"\log p", display=False))
    assert math.find(f".//{MATHML}mspace").get("width") == "0.1667em"


def test_a_function_name_before_a_bracket_gets_function_application_but_no_space():
    assert _row(r"\exp(x)")[:3] == [("mi", "exp"), ("mo", "\u2061"), ("mo", "(")]


def test_operatorname_becomes_an_identifier_applied_to_its_operand():
    assert _row(r"\operatorname{RoPE}(x)")[:3] == [("mi", "RoPE"), ("mo", "\u2061"), ("mo", "(")]


def test_a_function_name_with_an_exponent_is_applied_to_its_operand():
    tags = [tag for tag, _ in _row(r"\cos^2 \theta")]
    assert tags == ["msup", "mo", "mspace", "mi"]


def test_a_function_name_without_operand_gets_no_function_application():
    assert _row(r"\sin") == [("mi", "sin")]
    assert ("mo", "\u2061") not in _row(r"\log = y")


def test_limit_operators_keep_their_own_spacing():
    assert "\u2061" not in "".join(text for _, text in _row(r"\max_i x_i"))


def test_readable_math_replaces_symbols_by_characters_and_drops_backslashes():
    assert readable_math(r"\theta_i \le \frac{1}{\sqrt{d}}") == "θ_i ≤ 1/√d"
    assert readable_math(r"\sin(x) \cdot \text{logits}") == "sin(x) · logits"


def test_search_text_has_no_latex_backslashes():
    text = plain_text(r"Angles $\theta_i = 10000^{-2i/d}$ and $$\mathbb{R}^{V \times D}$$")
    assert "\\" not in text
    assert "θ_i" in text and "V × D" in text
