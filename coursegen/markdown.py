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
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .mathml import to_mathml
from .memo import memoized

LINK_SCHEMES = ("lesson", "term", "quiz", "exercise")
_SCHEME = re.compile(r"^([a-z]+):")


@dataclass(frozen=True)
class MathSpan:
    latex: str
    offset: int      # where the LaTeX starts in the Markdown source
    display: bool


@dataclass(frozen=True)
class LinkSpan:
    target: str
    offset: int      # where the target starts in the Markdown source


@functools.lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The Markdown parser every part of coursegen uses (raw HTML disabled)."""
    md = MarkdownIt("commonmark", {"html": False, "highlight": highlight_code})
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True,
           renderer=_render_math)
    md.enable("table")
    md.enable("strikethrough")
    md.validateLink = lambda url: not url.lower().startswith(("javascript:", "vbscript:", "data:"))
    md.add_render_rule("link_open", _render_link_open)
    return md


def _render_math(content: str, options: dict) -> str:
    return to_mathml(content, display=bool(options.get("display_mode")))


def internal_url(target: str) -> str | None:
    """The relative URL of an internal `scheme:value` link, or None if not internal."""
    match = _SCHEME.match(target)
    if not match or match.group(1) not in LINK_SCHEMES:
        return None
    scheme, value = match.group(1), target[match.end():]
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


@functools.lru_cache(maxsize=None)
def highlight_code(code: str, language: str, _attrs: str) -> str:
    """Pygments HTML with CSS classes (the stylesheet is assets/pygments.css)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language or "text")
    except ClassNotFound:
        lexer = TextLexer()
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="highlight"><code>{body}</code></pre>\n'


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
                offset = offset + 1 if offset >= 0 and source.startswith("(", offset) else _find(source, str(raw), cursor)
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
    """The readable text of a Markdown string (for the search index): no markup, math kept as LaTeX."""
    parts: list[str] = []
    for token in parser().parse(source):
        if token.type in ("math_block", "math_block_label", "fence", "code_block"):
            parts.append(token.content)
        for child in token.children or []:
            if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
    return re.sub(r"\s+", " ", " ".join(parts)).strip()
