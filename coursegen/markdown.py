"""Markdown to HTML: markdown-it-py, `$`/`$$` math as MathML, Pygments code, course links.

One parser configuration serves both the loader (which looks for math and internal
links to check them) and the site (which renders), so what is checked is exactly
what is rendered.

Internal links are written with a scheme and become relative URLs between pages of
the same language (every page of one language lives in one folder):

| Markdown target            | URL                              |
|----------------------------|----------------------------------|
| `lesson:<id>`              | `<id>.html`                      |
| `lesson:<id>#<section-id>` | `<id>.html#<section-id>`         |
| `term:<term-id>`           | `glossary.html#term-<term-id>`   |
| `quiz:<lesson-id>`         | `quiz-<lesson-id>.html`          |
| `exercise:<name>`          | `exercises.html#exercise-<name>` |
"""

from __future__ import annotations

import functools
import html
import json
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_inline_dollar

from .mathml import to_mathml
from .memo import memoized

LINK_SCHEMES = ("lesson", "term", "quiz", "exercise")
_SCHEME = re.compile(r"^([a-z]+):")


@dataclass(frozen=True)
class MathSpan:
    latex: str
    offset: int  # where the LaTeX starts in the Markdown source
    display: bool


@dataclass(frozen=True)
class LinkSpan:
    target: str
    offset: int  # where the target starts in the Markdown source


class _SafeLinks(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        return not url.lower().startswith(("javascript:", "vbscript:", "data:"))


@functools.lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The Markdown parser every part of coursegen uses (raw HTML disabled)."""
    md = _SafeLinks("commonmark", {"html": False, "highlight": highlight_code})
    # The plugin's own digit check reads the character before the `$` as src[pos - 1], which at
    # the start of a table cell is the cell's LAST character: `| $x$ | 2 |` would stay raw text.
    # So the plugin runs with allow_digits=True and `_no_digits_around` does the check itself.
    _use_dollar_math(md, renderer=_render_math)
    md.enable("table")
    md.enable("strikethrough")
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("softbreak", _render_softbreak)
    md.add_render_rule("table_open", _render_table_open)
    md.add_render_rule("table_close", _render_table_close)
    md.add_render_rule("th_open", _render_th_open)
    md.add_render_rule("th_close", _render_th_close)
    renderer = md.renderer
    assert isinstance(renderer, RendererHTML), renderer  # the default renderer, with its rules
    md.add_render_rule("math_inline", _named_in_header_cells(renderer.rules["math_inline"]))
    for name in ("math_block", "math_block_label", "math_inline_double"):
        md.add_render_rule(name, _focusable_display_math(renderer.rules[name]))
    return md


# ---- blocks that scroll sideways -------------------------------------------------------------
# A code block, a display formula or a table can be wider than a phone and then scrolls on its
# own. A keyboard user can only scroll what takes focus, and a screen reader names what has
# focus, so each such block is a focusable, named group. The name depends on the page's
# language, which Markdown does not know: the block carries `data-region="<kind>"` and the page
# writer (coursegen.pages.render_page) adds `aria-label` in the page's language. assets/regions.js
# drops the tab stop again while a block fits on the screen.
REGION_KINDS = ("code", "math", "table", "output", "command")


def region_attributes(kind: str) -> str:
    """The attributes of a block of `kind` (see REGION_KINDS) that may scroll sideways."""
    assert kind in REGION_KINDS, kind
    return f'tabindex="0" role="group" data-region="{kind}"'


def _render_table_open(self, tokens, idx, options, env) -> str:
    return f'<div class="table-scroll" {region_attributes("table")}>\n' + self.renderToken(tokens, idx, options, env)


def _render_table_close(self, tokens, idx, options, env) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _render_th_open(self, tokens, idx, options, env) -> str:
    """An empty header cell (the corner of a two-way table) is no header: write it as a data cell."""
    content = tokens[idx + 1] if idx + 1 < len(tokens) else None
    if (
        content is not None
        and content.type == "inline"
        and not content.content.strip()
        and idx + 2 < len(tokens)
        and tokens[idx + 2].type == "th_close"
    ):
        tokens[idx].tag = tokens[idx + 2].tag = "td"
    elif tokens[idx].tag == "th":
        env["header_cell"] = True
    return self.renderToken(tokens, idx, options, env)


def _render_th_close(self, tokens, idx, options, env) -> str:
    env.pop("header_cell", None)
    return self.renderToken(tokens, idx, options, env)


def _named_in_header_cells(rule):
    """A formula that heads a table column (`| $H$ | slopes |`) gets its readable text as
    aria-label: the header's name, announced with every cell of the column, is plain text."""

    def render(self, tokens, idx, options, env) -> str:
        out = rule(tokens, idx, options, env)
        if env.get("header_cell"):
            name = html.escape(readable_math(tokens[idx].content), quote=True)
            out = re.sub(r"<math\b", f'<math aria-label="{name}"', out, count=1)
        return out

    return render


def _focusable_display_math(rule):
    def render(self, tokens, idx, options, env) -> str:
        return re.sub(r"^<div\b", f"<div {region_attributes('math')}", rule(tokens, idx, options, env), count=1)

    return render


def _use_dollar_math(md: MarkdownIt, renderer=None) -> None:
    md.use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True, renderer=renderer)
    md.inline.ruler.at(
        "math_inline", _no_digits_around(math_inline_dollar(allow_space=True, allow_digits=True, allow_double=True))
    )


def _no_digits_around(math_rule):
    """Inline `$...$` is not math when a digit touches the dollars on the outside (`1$`, `$2`),
    so a price such as "$5" stays text (two of them in one paragraph are reported by
    `unconverted_math`: write `\\$`). Checked within the inline text being parsed only."""

    def rule(state, silent: bool) -> bool:
        start = state.pos
        if state.src[start] != "$" or (start > 0 and state.src[start - 1].isdigit()):
            return False
        if not math_rule(state, True):
            return False
        end, state.pos = state.pos, start
        if end < len(state.src) and state.src[end].isdigit():
            return False
        return math_rule(state, silent)

    return rule


# ---- soft line breaks in Chinese -------------------------------------------------------------
# A newline inside a paragraph is a space between Latin words but nothing between Chinese
# characters (Chinese has no spaces between words).
_CJK = re.compile(
    "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)
_CJK_QUOTES = "\u201c\u201d\u2018\u2019\u2026\u2014\u00b7"  # “”‘’…—· as used in Chinese text


def joins_without_space(before: str, after: str) -> bool:
    """True when a line break between the characters `before` and `after` should vanish."""
    if not before or not after:
        return False
    cjk_before, cjk_after = bool(_CJK.match(before)), bool(_CJK.match(after))
    return (cjk_before and (cjk_after or after in _CJK_QUOTES)) or (before in _CJK_QUOTES and cjk_after)


def _neighbour_char(tokens, idx: int, step: int) -> str:
    """The text character next to tokens[idx] (step -1: before it, +1: after it), through markup
    such as `**` or links; "" when the neighbour is not text (math, code, an image)."""
    index = idx + step
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token.type == "text":
            if token.content:  # (emphasis leaves empty text tokens behind)
                return token.content[-1] if step < 0 else token.content[0]
        elif token.nesting == 0:
            return ""
        index += step
    return ""


def _render_softbreak(self, tokens, idx, options, env) -> str:
    if joins_without_space(_neighbour_char(tokens, idx, -1), _neighbour_char(tokens, idx, +1)):
        return ""
    return self.softbreak(tokens, idx, options, env)


def _render_math(content: str, options: dict) -> str:
    return to_mathml(content, display=bool(options.get("display_mode")))


def internal_url(target: str) -> str | None:
    """The relative URL of an internal `scheme:value` link, or None if not internal."""
    match = _SCHEME.match(target)
    if not match or match.group(1) not in LINK_SCHEMES:
        return None
    scheme, value = match.group(1), target[match.end() :]
    if scheme == "lesson":
        lesson, _, section = value.partition("#")
        return f"{lesson}.html" + (f"#{section}" if section else "")
    if scheme == "term":
        return f"glossary.html#term-{value}"
    if scheme == "quiz":
        return f"quiz-{value}.html"
    return f"exercises.html#exercise-{value}"


def _render_link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    href = token.attrGet("href") or ""
    url = internal_url(href)
    if url is not None:
        token.attrSet("href", url)
    elif re.match(r"^https?://", href):
        token.attrSet("rel", "noopener")
    return self.renderToken(tokens, idx, options, env)


def highlight_code(code: str, language: str, _attrs: str = "") -> str:
    """Pygments HTML with CSS classes (the stylesheet is assets/pygments.css)."""
    return _highlight(json.dumps([code, language or ""]))


@memoized("highlight")
def _highlight(code_and_language: str) -> str:
    # Memoised on disk: building a Pygments lexer costs more than a whole no-change rebuild's share.
    code, language = json.loads(code_and_language)
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language or "text")
    except ClassNotFound:
        lexer = TextLexer()
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="highlight" {region_attributes("code")}><code>{body}</code></pre>\n'


@memoized("render")
def render(source: str) -> str:
    """Block-level HTML for a Markdown string."""
    return parser().render(source)


@memoized("render_inline")
def render_inline(source: str) -> str:
    """Inline HTML (no surrounding <p>) for short Markdown such as a title or objective."""
    return parser().renderInline(source)


def _decode_spans(value) -> tuple[list[MathSpan], list[LinkSpan]]:
    math, links = value
    return [MathSpan(*item) for item in math], [LinkSpan(*item) for item in links]


@memoized("spans", decode=_decode_spans)
def spans(source: str):
    """The math formulas and link targets of a Markdown string, with their offsets
    (as `([MathSpan], [LinkSpan])`)."""
    math: list[MathSpan] = []
    links: list[LinkSpan] = []
    cursor = 0
    for token in parser().parse(source):
        if token.type in ("math_block", "math_block_label"):
            offset = _find(source, token.content, cursor)
            math.append(MathSpan(token.content, offset, True))
            cursor = max(cursor, offset)
        for child in token.children or []:
            if child.type in ("math_inline", "math_inline_double"):
                offset = _find(source, child.content, cursor)
                math.append(MathSpan(child.content, offset, child.type == "math_inline_double"))
                cursor = max(cursor, offset)
            elif child.type == "link_open":
                target = child.attrGet("href") or ""
                raw = child.attrs.get("href", "")
                offset = _find(source, "(" + str(raw), cursor)
                offset = (
                    offset + 1 if offset >= 0 and source.startswith("(", offset) else _find(source, str(raw), cursor)
                )
                links.append(LinkSpan(html.unescape(str(target)), max(offset, 0)))
                cursor = max(cursor, offset)
    return [[m.latex, m.offset, m.display] for m in math], [[link.target, link.offset] for link in links]


def _find(source: str, needle: str, start: int) -> int:
    found = source.find(needle, start)
    if found < 0:
        found = source.find(needle)
    return max(found, 0)


@memoized("plain_text")
def plain_text(source: str) -> str:
    """The readable text of a Markdown string (for the search index): no markup, math as
    readable text (`\\theta \\times d` -> `θ × d`, see `readable_math`), one space between blocks."""
    parts: list[str] = []
    for token in parser().parse(source):
        if token.type in ("math_block", "math_block_label"):
            parts.append(_MATH_EDGE + readable_math(token.content) + _MATH_EDGE)
        elif token.type in ("fence", "code_block"):
            parts.append(token.content + " ")
        elif token.type.endswith("_close") and token.block:
            parts.append(" ")
        children = token.children or []
        for index, child in enumerate(children):
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("math_inline", "math_inline_double"):
                parts.append(_MATH_EDGE + readable_math(child.content) + _MATH_EDGE)
            elif child.type == "softbreak":
                if not joins_without_space(_neighbour_char(children, index, -1), _neighbour_char(children, index, +1)):
                    parts.append(" ")
            elif child.type == "hardbreak":
                parts.append(" ")
    text = "".join(parts)
    # A formula is set apart by spaces, except before punctuation and after an opening bracket.
    text = re.sub(_MATH_EDGE + r"+(?=[.,;:!?)\]。，；：！？、）])", "", text)
    text = re.sub(r"(?<=[(\[（])" + _MATH_EDGE + "+", "", text)
    return re.sub(r"\s+", " ", text.replace(_MATH_EDGE, " ")).strip()


_MATH_EDGE = "\x00"


def readable_math(latex: str) -> str:
    """LaTeX as text a reader recognises in a search snippet, read back from the MathML the site
    shows (coursegen.mathtext): `\\theta \\le 1` -> `θ ≤ 1`, `\\frac{a}{b}` -> `a/b`, a pmatrix ->
    `[[cos a, -sin a], [sin a, cos a]]`. Math the converter rejects (the loader reports it) keeps
    its letters, digits and symbols, never a command name."""
    from .mathtext import readable

    try:
        return readable(latex)
    except Exception:  # latex2mathml raises its own types and builtins; the loader reports the formula
        text = re.sub(r"\\[A-Za-z]+\*?", " ", latex)
        return re.sub(r"\s+", " ", re.sub(r"[{}&\\]", " ", text)).strip()


# ---- math that was not converted ------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _checking_parser() -> MarkdownIt:
    """The site's parser without `text_join`, so an escaped `\\$` stays a separate token."""
    md = MarkdownIt("commonmark", {"html": False})
    _use_dollar_math(md)
    md.enable("table")
    md.enable("strikethrough")
    md.disable("text_join")
    return md


@memoized("unconverted_math", decode=lambda found: [tuple(item) for item in found])
def unconverted_math(source: str) -> list[tuple[int, str]]:
    """Math left as plain text: in each paragraph, heading or table cell with two or more
    unescaped `$` outside math and code (e.g. `$x$2`, where a digit touches the dollar), the
    first of them, as (offset in `source`, the source from there to the end of its line).
    A single `$` ("costs $5") and escaped ones (`\\$5 and \\$10`) are fine."""
    found: list[tuple[int, str]] = []
    cursor = 0
    for token in _checking_parser().parse(source):
        if token.type != "inline":
            continue
        dollars: list[int] = []
        for child in token.children or []:
            if child.type != "text" or not child.content:
                continue
            start = source.find(child.content, cursor)
            if start < 0:
                continue
            cursor = start + len(child.content)
            dollars.extend(start + i for i, char in enumerate(child.content) if char == "$")
        if len(dollars) >= 2:
            offset = dollars[0]
            found.append((offset, source[offset:].split("\n", 1)[0][:60]))
    return found
