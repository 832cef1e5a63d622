"""Write the course's own pages: index, lesson, glossary, exercises and search pages, per
language, and the site's assets. Every page is rendered through coursegen.pages (make_env,
base_context, render_page), as the quiz pages, slide decks and report are. Example outputs and
figure SVGs are computed by coursegen.build before the writers run and are read from
`env.globals["example_outputs"]` and `env.globals["figure_svgs"]` (both keyed by (lesson id,
block id)).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from . import markdown, student_guide
from .claims_view import claims_html
from .pages import accessible_svg, base_context, render_page
from .schema import CodeBlock, FigureBlock, Language, Lesson, NoteBlock, TextBlock
from .ui_strings import UI


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


def exercise_points(root: Path) -> dict[str, float | int]:
    """Points per exercise as the grader counts them: grader.reporting.assignments.check_points,
    the one reader of what checks are worth (`pytestmark`, class marks and each case of a literal
    `parametrize` included). A whole number stays an int on the page: "(2 points)"."""
    from grader.reporting.assignments import check_points

    return {
        name: int(n) if float(n).is_integer() else n
        for name, n in check_points(Path(root) / "grader" / "checks").items()
    }


# ---- writers (the units of coursegen/outputs/pages.py and assets.py) ---------------------------


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
            due_dates=student_guide.due_dates(loaded, lang),
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
