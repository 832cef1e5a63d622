"""Render the course site: index, lesson, glossary, exercises and search pages, per language.

Pages are Jinja2 templates in `templates/` that extend `base.html`. Other parts of
coursegen render their own pages the same way:

    env = make_env(loaded.root)
    render_page(env, "quiz.html", staging / lang / f"quiz-{lesson.id}.html",
                **base_context(loaded, lang, f"quiz-{lesson.id}.html", title=...), ...)

`base_context` gives everything base.html needs (language, language switch, links,
UI strings). Example outputs and figure SVGs are computed by coursegen.build before
the writers run and are read from `env.globals["example_outputs"]` and
`env.globals["figure_svgs"]` (both keyed by (lesson id, block id)).
"""

from __future__ import annotations

import ast
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from . import markdown, student_guide
from .claims_view import claims_html
from .memo import memoized
from .pysource import mark_calls
from .schema import CodeBlock, FigureBlock, Language, Lesson, NoteBlock, TextBlock

PACKAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"  # the engine's defaults (package data)
HTML_LANG = {"en": "en", "zh": "zh-CN"}
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}

UI: dict[str, dict[str, str]] = {
    "en": {
        "skip": "Skip to content",
        "lessons": "Lessons",
        "glossary": "Glossary",
        "exercises": "Exercises",
        "search": "Search",
        "search_label": "Search the course",
        "switch": "中文",
        "switch_label": "阅读中文版",
        "previous": "Previous",
        "next": "Next",
        "contents": "Contents",
        "objectives": "What you will learn",
        "key_terms": "Key terms",
        "quiz": "Quiz",
        "take_quiz": "Take the quiz for this lesson",
        "output": "Output",
        "notebook": "Notebook",
        "download_notebook": "Download the lesson notebook (.ipynb)",
        "all_exercises": "All exercises",
        "points": "points",
        "self_check": "Check your work",
        "submit": "Submit",
        "taught_in": "Taught in",
        "lesson_word": "Lesson",
        "footer": "Built with coursegen. Works offline.",
        "home": "Course home",
        "choose_language": "Choose a language",
        "start": "Start the course",
        "results": "results",
        "no_results": "No results.",
        "search_hint": "Type a word to search the course.",
        "exercise_word": "Exercise",
        "module": "module",
        "lesson_nav": "Lesson navigation",
        "main_nav": "Main",
        "example": "Example",
        "figure": "Figure",
        "in_lesson": "in",
        "search_kinds": "lesson=Lesson;section=Section;term=Key term;quiz=Quiz",
        "site_search": "Quick search",
        "page_search": "Search the course",
        "region_code": "Code",
        "region_math": "Formula",
        "region_table": "Table",
        "region_output": "Output",
        "region_command": "Command",
        "present": "Present this lesson",
        "present_short": "Slides",
    },
    "zh": {
        "skip": "跳到正文",
        "lessons": "课程目录",
        "glossary": "术语表",
        "exercises": "练习",
        "search": "搜索",
        "search_label": "搜索课程",
        "switch": "English",
        "switch_label": "Read this page in English",
        "previous": "上一课",
        "next": "下一课",
        "contents": "目录",
        "objectives": "学习目标",
        "key_terms": "关键术语",
        "quiz": "测验",
        "take_quiz": "做本课的测验",
        "output": "输出",
        "notebook": "笔记本",
        "download_notebook": "下载本课的笔记本（.ipynb）",
        "all_exercises": "全部练习",
        "points": "分",
        "self_check": "自我检查",
        "submit": "提交",
        "taught_in": "出处",
        "lesson_word": "课",
        "footer": "由 coursegen 生成，可离线使用。",
        "home": "课程首页",
        "choose_language": "选择语言",
        "start": "开始学习",
        "results": "条结果",
        "no_results": "没有结果。",
        "search_hint": "输入一个词来搜索课程。",
        "exercise_word": "练习",
        "module": "模块",
        "lesson_nav": "课程导航",
        "main_nav": "主导航",
        "example": "示例",
        "figure": "图",
        "in_lesson": "位于",
        "search_kinds": "lesson=课;section=小节;term=术语;quiz=测验",
        "site_search": "快速搜索",
        "page_search": "搜索课程",
        "region_code": "代码",
        "region_math": "公式",
        "region_table": "表格",
        "region_output": "输出",
        "region_command": "命令",
        "present": "演示本课",
        "present_short": "幻灯片",
    },
}


# ---- Jinja environment and page rendering ---------------------------------------------------


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


# ---- views: what a template shows, prepared in Python ---------------------------------------


@dataclass
class BlockView:
    kind: str
    html: str = ""
    style: str = ""
    id: str = ""
    caption: str = ""
    code_html: str = ""
    output: str | None = None
    svg: str = ""
    alt: str = ""


@dataclass
class SectionView:
    id: str
    title: str
    blocks: list[BlockView] = field(default_factory=list)


def lesson_view(lesson: Lesson, lang: Language, env: jinja2.Environment) -> list[SectionView]:
    outputs = env.globals.get("example_outputs", {})  # (lesson id, block id) -> text
    svgs = env.globals.get("figure_svgs", {})  # (lesson id, block id) -> SVG
    assert isinstance(outputs, dict) and isinstance(svgs, dict), "make_env sets both"
    sections = []
    for section in lesson.sections:
        view = SectionView(section.id, markdown.render_inline(section.title.get(lang)))
        for block in section.blocks:
            if isinstance(block, TextBlock):
                view.blocks.append(BlockView("text", html=markdown.render(block.get(lang))))
            elif isinstance(block, NoteBlock):
                view.blocks.append(BlockView("note", html=markdown.render(block.get(lang)), style=block.style))
            elif isinstance(block, CodeBlock):
                output = outputs.get((lesson.id, block.id)) if block.show_output else None
                view.blocks.append(
                    BlockView(
                        "code",
                        id=block.id,
                        code_html=markdown.highlight_code(block.code.rstrip("\n") + "\n", "python", ""),
                        caption=markdown.render_inline(block.caption.get(lang)) if block.caption else "",
                        output=output,
                    )
                )
            elif isinstance(block, FigureBlock):
                alt = block.alt.get(lang)
                svg = svgs.get((lesson.id, block.id), "")
                view.blocks.append(
                    BlockView(
                        "figure",
                        id=block.id,
                        caption=markdown.render_inline(block.caption.get(lang)),
                        svg=accessible_svg(svg, f"fig-{block.id}", alt),
                        alt=alt,
                    )
                )
        evidence = env.globals.get("claim_evidence", {})
        assert isinstance(evidence, dict), "build_site sets it"
        shown = claims_html(lesson, section.id, lang, evidence)
        if shown:  # the lesson's claims placed in this section, with their per-seed evidence
            view.blocks.append(BlockView("claims", html=shown))
        sections.append(view)
    return sections


def accessible_svg(svg: str, prefix: str, label: str) -> str:
    """Make an inline SVG unique on its page (prefixed ids) and give it role="img" and a label."""
    if not svg:
        return ""
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    svg = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"', svg)
    svg = re.sub(r"<svg\b", f'<svg role="img" aria-label="{html.escape(label, quote=True)}"', svg, count=1)
    return svg


def exercise_points(root: Path) -> dict[str, float]:
    """Points per exercise, read (not imported) from the grader's checks: the sum of
    `@pytest.mark.points(n)` (default 1) over the checks marked `@pytest.mark.exercise(name)`."""
    points: dict[str, float] = {}
    for check_file in sorted((Path(root) / "grader" / "checks").glob("test_*.py")):
        try:
            tree = ast.parse(check_file.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        exercise_of = {node: name for node, _, name in mark_calls(tree, "exercise")}
        points_of = {node: n for node, _, n in mark_calls(tree, "points") if isinstance(n, (int, float))}
        for node, exercise in exercise_of.items():
            if isinstance(exercise, str):  # an int stays an int on the page: "(2 points)"
                points[exercise] = points.get(exercise, 0) + points_of.get(node, 1)
    return points


# ---- writers (registered in coursegen.build.OUTPUT_WRITERS) ---------------------------------


def write_pages(loaded, staging: Path, env: jinja2.Environment) -> None:
    """Every HTML page of the site except quiz pages: root index, then per language the
    index, the lessons, the glossary, the exercises and the search page."""
    write_course_pages(loaded, staging, env)
    for lang in loaded.course.languages:
        for lesson in loaded.lessons:
            write_lesson_page(loaded, lesson, lang, Path(staging) / lang, env)


def write_course_pages(loaded, staging: Path, env: jinja2.Environment) -> None:
    """The pages about the whole course (they list or link every lesson): root index, then per
    language the index, the glossary, the exercises and the search page."""
    staging = Path(staging)
    first = loaded.course.languages[0]
    render_page(
        env,
        "index.html",
        staging / "index.html",
        **base_context(loaded, first, "index.html", title=loaded.course.title.get(first), at_root=True),
        lessons=loaded.lessons,
        at_root=True,
    )
    points = exercise_points(loaded.root)
    for lang in loaded.course.languages:
        folder = staging / lang
        render_page(
            env,
            "index.html",
            folder / "index.html",
            **base_context(loaded, lang, "index.html", title=loaded.course.title.get(lang)),
            lessons=loaded.lessons,
            at_root=False,
        )
        render_page(
            env,
            "glossary.html",
            folder / "glossary.html",
            **base_context(loaded, lang, "glossary.html", title=UI[lang]["glossary"]),
            terms=glossary_terms(loaded, lang),
        )
        render_page(
            env,
            "exercises.html",
            folder / "exercises.html",
            **base_context(loaded, lang, "exercises.html", title=UI[lang]["exercises"]),
            groups=exercise_groups(loaded, points),
            self_check_text=student_guide.self_check_text(loaded.course, lang),  # the notebook's own self-check
            submit_text=student_guide.submit_text(loaded.course, lang),  # the course's route (course.yaml)
        )
        render_page(
            env,
            "search.html",
            folder / "search.html",
            **base_context(loaded, lang, "search.html", title=UI[lang]["search"]),
        )


def write_lesson_page(loaded, lesson: Lesson, lang: Language, folder: Path, env: jinja2.Environment) -> None:
    before, after = loaded.neighbours(lesson.id)
    context = base_context(loaded, lang, f"{lesson.id}.html", title=lesson.title.get(lang))
    context.update(
        prev_lesson=(before.id, before.title.get(lang)) if before else None,
        next_lesson=(after.id, after.title.get(lang)) if after else None,
        lesson_toc=[(s.id, markdown.render_inline(s.title.get(lang))) for s in lesson.sections],
    )
    number = [item.id for item in loaded.lessons].index(lesson.id) + 1
    render_page(
        env,
        "lesson.html",
        folder / f"{lesson.id}.html",
        **context,
        lesson=lesson,
        number=number,
        sections=lesson_view(lesson, lang, env),
    )


def glossary_terms(loaded, lang: Language) -> list[dict[str, Any]]:
    """Every key term with the lesson that teaches it, sorted by its English name."""
    terms = []
    for lesson in loaded.lessons:
        for term in lesson.key_terms:
            terms.append({"term": term, "lesson": lesson, "sort": term.term.en.casefold()})
    return sorted(terms, key=lambda item: (item["sort"], item["term"].id))


def exercise_groups(loaded, points: dict[str, float]) -> list[dict[str, Any]]:
    from grader.course import Course

    BY_NAME = Course.load(loaded.root).registry.by_name
    groups = []
    for lesson in loaded.lessons:
        if lesson.exercises:
            groups.append(
                {
                    "lesson": lesson,
                    "exercises": [
                        {
                            "ref": ref,
                            "module": BY_NAME[ref.name].module,
                            "kind": BY_NAME[ref.name].kind,
                            "points": points.get(ref.name),
                        }
                        for ref in lesson.exercises
                    ],
                }
            )
    return groups


def write_assets(loaded, staging: Path, env: jinja2.Environment) -> None:
    """Copy templates/assets/* (CSS, classic scripts) and write the Pygments stylesheet."""
    staging = Path(staging)
    target = staging / "assets"
    target.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    loader = env.loader
    assert isinstance(loader, jinja2.FileSystemLoader), loader  # as make_env makes it
    for folder in loader.searchpath:  # the course's templates first, then coursegen's own
        source = Path(folder) / "assets"
        if not source.is_dir():
            continue
        for path in sorted(source.rglob("*")):
            relative = path.relative_to(source).as_posix()
            if path.is_file() and relative not in seen:
                seen.add(relative)
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                (target / relative).write_bytes(path.read_bytes())
    (target / "pygments.css").write_text(pygments_css(), encoding="utf-8")


def pygments_css() -> str:
    """Code colours for the light theme, and for the dark theme under prefers-color-scheme."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style="default").get_style_defs(".highlight")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".highlight")
    dark = "\n".join("  " + line for line in dark.splitlines())
    return (
        f"/* Pygments 'default' (light) and 'github-dark' (dark) */\n{light}\n"
        f"@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
    )
