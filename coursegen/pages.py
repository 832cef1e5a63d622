"""What every page of the site shares, whichever part of coursegen writes it (the course pages in
coursegen.site, quiz pages, slide decks, the report):

    env = make_env(loaded.root)
    render_page(env, "quiz.html", staging / lang / f"quiz-{lesson.id}.html",
                **base_context(loaded, lang, f"quiz-{lesson.id}.html", title=...), ...)

Pages are Jinja2 templates that extend `base.html` (the course's templates/ first, then the
engine's, PACKAGE_TEMPLATES). `base_context` gives everything base.html needs (language, language
switch, links, UI strings); `render_page` writes the page with its scrollable regions named in
its language; `render_markdown` and `accessible_svg` prepare what a template shows.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import jinja2

from . import markdown
from .memo import memoized
from .schema import Language
from .ui_strings import UI

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the engine's defaults (package data)
HTML_LANG = {"en": "en", "zh": "zh-CN"}
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


def make_env(root: Path | str | None = None, *, cache_dir: Path | str | None = None) -> jinja2.Environment:
    """The Jinja2 environment: the course's templates/ if it has one, else coursegen's own.
    With `cache_dir`, compiled templates are kept in `cache_dir/jinja/` (checked against the
    template source, so an edited template is recompiled)."""
    folders = []
    if root is not None and (Path(root) / "templates" / "base.html").is_file():
        folders.append(str(Path(root) / "templates"))
    folders.append(str(PACKAGE_TEMPLATES))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folders),
        autoescape=jinja2.select_autoescape(["html", "xml"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_bytecode_cache(cache_dir),
    )
    env.filters["md"] = lambda source, base="": jinja2.filters.Markup(render_markdown(source or "", base))
    env.filters["md_inline"] = lambda source: jinja2.filters.Markup(markdown.render_inline(source or ""))
    env.globals.setdefault("example_outputs", {})
    env.globals.setdefault("figure_svgs", {})
    return env


def render_markdown(source: str, base: str = "") -> str:
    """Block-level HTML for Markdown shown on a page. Internal links (`lesson:`...) are relative to
    a page in a language folder; a page outside it (the root index) passes the path from itself to
    that folder as `base` ("en/"), which goes in front of them."""
    if not base:
        return markdown.render(source)
    return _render_markdown_from(json.dumps([source, base]))


@memoized("render_from")
def _render_markdown_from(source_and_base: str) -> str:
    # Memoised on disk like markdown.render: a no-change rebuild parses no Markdown.
    source, base = json.loads(source_and_base)
    parser = markdown.parser()
    tokens = parser.parse(source)
    for token in tokens:
        for child in token.children or ():
            url = markdown.internal_url(str(child.attrGet("href") or "")) if child.type == "link_open" else None
            if url is not None:
                child.attrSet("href", base + url)
    return parser.renderer.render(tokens, parser.options, {})


def _bytecode_cache(cache_dir: Path | str | None) -> jinja2.BytecodeCache | None:
    if cache_dir is None:
        return None
    folder = Path(cache_dir) / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a cache that cannot be written only costs time
    return jinja2.FileSystemBytecodeCache(str(folder))


def render_page(env: jinja2.Environment, template_name: str, out_path: Path | str, **context: Any) -> None:
    """Render one template to `out_path` (UTF-8, "\\n" line ends), creating folders as needed."""
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    text = env.get_template(template_name).render(**context)
    text = name_regions(text, context.get("lang", "en"))
    out_path.write_bytes(text.encode("utf-8"))


# Inside a start tag only (text never holds a raw "<"): `<pre class="highlight" ... data-region="code"`.
_REGION = re.compile(r'(<[a-z][a-z0-9]*\b[^<>]*?) data-region="([a-z]+)"(?![^<>]*\baria-label=)')


def name_regions(page_html: str, lang: Language) -> str:
    """Give every block that may scroll sideways (`data-region`, see coursegen.markdown) its name
    in the page's language: `aria-label="Code"`, "Formula", "Table", "Output", "Command"."""
    labels = UI.get(lang, UI["en"])

    def label(match: re.Match) -> str:
        name = labels.get(f"region_{match.group(2)}", match.group(2))
        return f'{match.group(1)} data-region="{match.group(2)}" aria-label="{html.escape(name, quote=True)}"'

    return _REGION.sub(label, page_html)


def page_ui(course, lang: Language) -> dict[str, str]:
    """The UI strings of a page: the engine's, with the course's own `search_hint` (course.yaml) if set."""
    if course.search_hint is None:
        return UI[lang]
    return {**UI[lang], "search_hint": course.search_hint.get(lang)}


def base_context(loaded, lang: Language, page: str, *, title: str, at_root: bool = False) -> dict[str, Any]:
    """What base.html needs for the page `<lang>/<page>` (or `index.html` at the root)."""
    languages = list(loaded.course.languages)
    other = next((code for code in languages if code != lang), None)
    root = "" if at_root else "../"
    here = f"{lang}/" if at_root else ""  # prefix from the page to its language folder
    return {
        "course": loaded.course,
        "lang": lang,
        "html_lang": HTML_LANG[lang],
        "ui": page_ui(loaded.course, lang),
        "title": title,
        "page": page,
        "root": root,
        "here": here,
        "other_lang": other,
        "other_lang_name": LANGUAGE_NAMES.get(other or "", ""),
        "other_html_lang": HTML_LANG.get(other or "", ""),
        "other_url": (f"{root}{other}/{page}" if other else None),
        "nav_lessons": [(lesson.id, lesson.title.get(lang)) for lesson in loaded.lessons],
        "lesson_toc": [],
        "prev_lesson": None,
        "next_lesson": None,
    }


def accessible_svg(svg: str, prefix: str, label: str) -> str:
    """Make an inline SVG unique on its page (prefixed ids) and give it role="img" and a label."""
    if not svg:
        return ""
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"', svg)
    svg = re.sub(r"<svg\b", f'<svg role="img" aria-label="{html.escape(label, quote=True)}"', svg, count=1)
    return svg
