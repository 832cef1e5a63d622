"""Question text (Markdown with $math$) for each output.

- the course site: HTML with MathML, through the site's own renderer (coursegen.markdown);
- Moodle (GIFT, XML): HTML with the math kept as LaTeX between \\( \\) and \\[ \\], which
  Moodle's MathJax and TeX filters render (Moodle's HTML cleaner would strip MathML);
- Canvas QTI: HTML with MathML (Canvas keeps MathML and browsers render it natively);
- bilingual outputs for Moodle wrap each language in Moodle's multi-language spans.
"""

from __future__ import annotations

import functools
import html

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

MOODLE_LANG = {"en": "en", "zh": "zh_cn"}


def _tex(content: str, options: dict) -> str:
    latex = html.escape(content.strip(), quote=False)
    return f"\\[{latex}\\]" if options.get("display_mode") else f"\\({latex}\\)"


@functools.lru_cache(maxsize=1)
def _tex_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})
    md.use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True, renderer=_tex)
    md.enable("table")
    return md


def _strip_paragraph(rendered: str) -> str:
    """`<p>one paragraph</p>` -> `one paragraph` (short texts such as options)."""
    text = rendered.strip()
    if text.startswith("<p>") and text.endswith("</p>") and text.count("<p>") == 1:
        return text[3:-4]
    return text


@functools.lru_cache(maxsize=16384)
def html_mathml(source: str, inline: bool = False) -> str:
    """Site HTML: Markdown rendered by coursegen.markdown (math as MathML)."""
    from coursegen import markdown

    return _strip_paragraph(markdown.render(source)) if inline else markdown.render(source).strip()


@functools.lru_cache(maxsize=16384)
def html_tex(source: str, inline: bool = False) -> str:
    """LMS HTML: Markdown rendered with math kept as LaTeX in \\( \\) / \\[ \\]."""
    rendered = _tex_parser().render(source)
    return _strip_paragraph(rendered) if inline else rendered.strip()


def plain_tex(source: str) -> str:
    """Plain text with math as \\( \\): for places that take no HTML (Moodle matching answers)."""
    return html.unescape(html_tex(source, inline=True).replace("<code>", "").replace("</code>", ""))


def moodle_multilang(text: dict[str, str], render) -> str:
    """Both languages as Moodle multi-language spans (the multilang filter shows the reader's one)."""
    if text["en"] == text["zh"]:
        return render(text["en"])
    return "".join(
        f'<span lang="{MOODLE_LANG[lang]}" class="multilang">{render(text[lang])}</span>' for lang in ("en", "zh")
    )


def both_languages(text: dict[str, str], render) -> str:
    """Both languages one after the other, each in a block marked with its language."""
    if text["en"] == text["zh"]:
        return render(text["en"])
    return "".join(f'<div lang="{lang}">{render(text[lang])}</div>' for lang in ("en", "zh"))
