"""Exercise notebooks: one per lesson with exercises, per language, for students and instructors.

A notebook holds, in order: the title, summary and objectives; the lesson's sections
(explanations and formulas as Markdown with $math$); its key terms; a setup cell that
imports only torch and the standard library; the self-check tools; and, per exercise, the
task statement, the code cell (the stub from exercises/<module>.py, or for instructors the
reference from solutions/<module>.py) and its self-check.

Every cell carries `metadata.coursegen = {"lesson", "role", "exercise"}` (role: text,
setup, exercise, selfcheck) so the grader finds the student's code without guessing;
exercise cells are tagged "exercise"; every other cell is `editable: false, deletable:
false`. Cell ids come from the lesson, role and exercise, and output is byte-for-byte
deterministic (nbformat v4, current minor, validated).

Student notebooks go to `_site/notebooks/<lang>/<lesson>.ipynb`; instructor notebooks
(`<lesson>-solution.ipynb`) only where asked: the build's notebooks output
(coursegen/outputs/notebooks.py) with `with_solutions` set (a `build --with-solutions`) or `write_notebook_folder(..., solutions=True)` (`coursegen notebooks
--solutions`). The default build never publishes solutions.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Iterable, TypedDict

import nbformat
from nbformat import v4
from nbformat.v4 import nbjson

from grader.atomic import write_atomically

from . import exercise_source, markdown
from .errors import ContentError, ContentErrors
from .schema import CodeBlock, FigureBlock, Language, Lesson, NoteBlock, TextBlock
from .selfcheck_code import ExpectedValues, SubmitTarget, selfcheck_cell, tools_cell
from .selfcheck_cases import SelfCheckSpec, by_exercise

NOTEBOOK_FORMAT = 1  # version of the metadata written under notebook.metadata.coursegen


class _Prose(TypedDict):
    """The fixed sentences of a notebook in one language."""

    objectives: str
    setup_comment: str
    solutions_title: str
    instructor_note: str
    key_terms: str
    exercises: str
    how_to: str
    how_to_submit: str
    exercise: str
    note: dict[str, str]  # by note style
    figure: str
    code_caption: str
    lesson_page: str


PROSE: dict[Language, _Prose] = {
    "en": {
        "objectives": "**Objectives.** After this lesson you can:",
        "setup_comment": "# Setup (read-only): run this cell first. It imports only {libraries}the Python standard library.",
        "solutions_title": " (solutions)",
        "instructor_note": "> **Instructor notebook:** the exercise cells contain the reference solutions. "
        "Do not share it with students.",
        "key_terms": "## Key terms",
        "exercises": "## Exercises",
        "how_to": (
            "1. Run the **setup** cell and the **self-check tools** cell below (or *Run All*).\n"
            "2. For each exercise, replace `raise NotImplementedError` in the exercise cell with your code. "
            "Keep the function or class name and its signature.\n"
            "3. Run your cell, then its **self-check** cell: it prints `[PASS]`, `[FAIL]` with the first "
            "difference, or `[TODO]` while the exercise is not implemented yet.\n"
            "4. Submit the whole notebook (`.ipynb`). Only the exercise cells are graded, with more, hidden "
            "checks; you may add your own cells, they are ignored.\n\n"
            "Only the exercise cells are editable; the other cells are read-only."
        ),
        "how_to_submit": "To hand it in from here: save the notebook, then run `submit()` in a new cell. It asks "
        "for your grading token (not saved in the notebook), sends the notebook to the course's grading service "
        "and prints your score and feedback within seconds.",
        "exercise": "### Exercise {number}: `{name}`",
        "note": {"tip": "Tip", "warning": "Warning", "aside": "Aside"},
        "figure": "*Figure ({caption}): see the lesson page.*",
        "code_caption": "*Example: {caption}*",
        "lesson_page": "[Lesson page]({url})",
    },
    "zh": {
        "objectives": "**学习目标。** 学完本课后，你能够：",
        "setup_comment": "# 准备（只读）：请先运行本单元。它只导入 {libraries}Python 标准库。",
        "solutions_title": "（参考答案）",
        "instructor_note": "> **教师版笔记本：** 练习单元中是参考答案，请勿发给学生。",
        "key_terms": "## 关键术语",
        "exercises": "## 练习",
        "how_to": (
            "1. 运行下面的 **setup** 单元和 **自检工具** 单元（或直接“全部运行”）。\n"
            "2. 在每道练习的代码单元中，把 `raise NotImplementedError` 换成你的代码，函数名（或类名）和签名保持不变。\n"
            "3. 运行你的单元，再运行它下面的 **自检** 单元：通过时输出 `[PASS]`，出错时输出 `[FAIL]` 及第一个不同之处，"
            "尚未实现时输出 `[TODO]`。\n"
            "4. 提交整个笔记本（`.ipynb` 文件）。评分只看练习单元，并会运行更多隐藏检查；你可以添加自己的单元，评分时会忽略它们。\n\n"
            "只有练习单元可以编辑，其他单元都是只读的。"
        ),
        "how_to_submit": "在这里直接提交：先保存笔记本，再在新单元中运行 `submit()`。它会询问你的评分令牌（不会保存在笔记本中），"
        "把笔记本发送到课程的评分服务，几秒内显示你的分数和反馈。",
        "exercise": "### 练习 {number}：`{name}`",
        "note": {"tip": "提示", "warning": "注意", "aside": "补充"},
        "figure": "*图（{caption}）：见课程网页。*",
        "code_caption": "*示例：{caption}*",
        "lesson_page": "[课程网页]({url})",
    },
}

_INTERNAL_LINK = re.compile(r"\]\(((?:lesson|term|quiz|exercise):[^)\s]*)\)")


def has_notebook(lesson: Lesson) -> bool:
    """Lessons with exercises get notebooks; the site links to them only then."""
    return bool(lesson.exercises)


def notebook_relpath(lesson_id: str, lang: Language, *, solution: bool = False) -> str:
    """Where a notebook lives under _site/ (fixed by docs/architecture.md)."""
    return f"notebooks/{lang}/{lesson_id}{'-solution' if solution else ''}.ipynb"


# ---- cells ---------------------------------------------------------------------------------


def _cell_id(lesson_id: str, role: str, part: str) -> str:
    """A stable, valid (<= 64 chars of [A-Za-z0-9_-]) id from the lesson, role and exercise/section."""
    raw = re.sub(r"[^A-Za-z0-9_-]", "-", f"{lesson_id}--{role}-{part}" if part else f"{lesson_id}--{role}")
    if len(raw) <= 64:
        return raw
    return raw[:51] + "-" + hashlib.sha256(raw.encode()).hexdigest()[:12]


def _metadata(lesson_id: str, role: str, exercise: str | None, **extra: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"coursegen": {"lesson": lesson_id, "role": role, "exercise": exercise}}
    if role == "exercise":
        metadata["tags"] = ["exercise"]
    else:
        metadata["editable"] = False
        metadata["deletable"] = False
    metadata.update(extra)
    return metadata


# Cells are built as plain nodes (v4.new_*_cell validates each one, which dominates a warm
# rebuild); the whole notebook is validated once in build_notebook.
def _markdown(lesson_id: str, part: str, source: str, exercise: str | None = None) -> Any:
    return nbformat.from_dict(
        {
            "cell_type": "markdown",
            "id": _cell_id(lesson_id, "text", part),
            "metadata": _metadata(lesson_id, "text", exercise),
            "source": source.strip() + "\n",
        }
    )


def _code(lesson_id: str, role: str, part: str, source: str, exercise: str | None = None, **extra: Any) -> Any:
    return nbformat.from_dict(
        {
            "cell_type": "code",
            "id": _cell_id(lesson_id, role, part),
            "execution_count": None,
            "metadata": _metadata(lesson_id, role, exercise, **extra),
            "outputs": [],
            "source": source.rstrip() + "\n",
        }
    )


def _links_for_notebook(text: str, lang: Language) -> str:
    """Internal `lesson:`/`term:`... links point at the site pages, relative to _site/notebooks/<lang>/."""

    def replace(match: re.Match) -> str:
        url = markdown.internal_url(match.group(1))
        return f"](../../{lang}/{url})" if url else match.group(0)

    return _INTERNAL_LINK.sub(replace, text)


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.strip().splitlines())


def _section_markdown(section: Any, lang: Language) -> str:
    prose = PROSE[lang]
    parts = [f"## {section.title.get(lang)}"]
    for block in section.blocks:
        if isinstance(block, TextBlock):
            parts.append(block.get(lang).strip())
        elif isinstance(block, NoteBlock):
            parts.append(_quote(f"**{prose['note'][block.style]}.** {block.get(lang).strip()}"))
        elif isinstance(block, CodeBlock):
            caption = [prose["code_caption"].format(caption=block.caption.get(lang).strip())] if block.caption else []
            parts.append("\n\n".join(caption + [f"```python\n{block.code.rstrip()}\n```"]))
        elif isinstance(block, FigureBlock):
            parts.append(prose["figure"].format(caption=block.caption.get(lang).strip()))
    return _links_for_notebook("\n\n".join(parts), lang)


# ---- one notebook --------------------------------------------------------------------------


class LessonSources:
    """The stub and reference modules of a course, parsed once (no imports, no torch)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._parsed: dict[Path, exercise_source.ParsedModule] = {}

    def module(self, folder: str, module: str) -> exercise_source.ParsedModule:
        path = self.root / folder / f"{module}.py"
        if path not in self._parsed:
            self._parsed[path] = exercise_source.ParsedModule.read(path, display=f"{folder}/{module}.py")
        return self._parsed[path]


def _registry(root: Path) -> dict[str, Any]:
    """The exercises of the course at `root`, by name."""
    from grader.course import Course

    return Course.load(root).registry.by_name


def _check_exercises(loaded: Any, lesson: Lesson, registry: dict[str, Any], specs: dict[str, SelfCheckSpec]) -> None:
    for position, exercise in enumerate(lesson.exercises):
        where = loaded.location(lesson.id, ("exercises", position, "name"))
        if exercise.name not in registry:
            raise ContentError(where, f"unknown exercise {exercise.name!r}")
        if exercise.name not in specs:
            raise ContentError(
                where, f"exercise {exercise.name!r} has no self-check spec (selfchecks(...) in content/plugins/)"
            )


def _lesson_cells(lesson: Lesson, lang: Language, solution: bool, submits: bool = False) -> list[Any]:
    """Title, summary, objectives, the sections' prose and formulas, key terms, how to work."""
    prose, lid = PROSE[lang], lesson.id
    title = lesson.title.get(lang) + (prose["solutions_title"] if solution else "")
    header = [
        f"# {title}",
        lesson.summary.get(lang).strip(),
        prose["objectives"],
        "\n".join(f"- {objective.get(lang).strip()}" for objective in lesson.objectives),
        prose["lesson_page"].format(url=f"../../{lang}/{lid}.html"),
    ]
    if solution:
        header.append(prose["instructor_note"])
    cells = [_markdown(lid, "title", _links_for_notebook("\n\n".join(header), lang))]
    cells += [_markdown(lid, f"section-{section.id}", _section_markdown(section, lang)) for section in lesson.sections]
    if lesson.key_terms:
        terms = "\n".join(
            f"- **{term.term.get(lang)}**: {term.definition.get(lang).strip()}" for term in lesson.key_terms
        )
        cells.append(_markdown(lid, "key-terms", _links_for_notebook(f"{prose['key_terms']}\n\n{terms}", lang)))
    how_to = prose["how_to"] + (f"\n\n{prose['how_to_submit']}" if submits else "")
    cells.append(_markdown(lid, "exercises", f"{prose['exercises']}\n\n{how_to}"))
    return cells


def submit_target(loaded: Any, lesson: Lesson) -> SubmitTarget | None:
    """Where the lesson's notebook submits itself (course.yaml `submission: {route: service, url}`):
    the assignments that hold its exercises, each with its lessons' notebook names; None otherwise."""
    course = loaded.course
    if course.submission.route != "service" or course.submission.url is None:
        return None
    from .assignments import course_assignments

    exercises = {le.id: [e.name for e in le.exercises] for le in loaded.lessons}
    mine = set(exercises[lesson.id])
    assignments = {
        a.id: [f"{lid}.ipynb" for lid, names in exercises.items() if set(names) & set(a.exercises)]
        for a in course_assignments(course, exercises, root=Path(loaded.root))
        if mine & set(a.exercises)
    }
    return SubmitTarget(course.submission.url, f"{lesson.id}.ipynb", assignments) if assignments else None


def _exercise_cells(
    loaded: Any,
    lesson: Lesson,
    lang: Language,
    solution: bool,
    registry: dict[str, Any],
    specs: dict[str, SelfCheckSpec],
    sources: LessonSources,
    expected: ExpectedValues,
) -> list[Any]:
    """The setup and self-check tools cells, then per exercise: task, code (stub or reference), self-check."""
    prose, lid = PROSE[lang], lesson.id
    names = [exercise.name for exercise in lesson.exercises]
    modules = list(dict.fromkeys(registry[name].module for name in names))
    parsed = [sources.module(folder, m) for folder in ("exercises", "solutions") for m in modules]
    requires = list(expected.requires)
    imported = list(expected.imports)
    libraries = ("、".join(imported) + " 和 " if lang == "zh" else ", ".join(imported) + " and ") if imported else ""
    setup_lines = exercise_source.setup_imports(parsed, requires)
    setup = "\n".join([prose["setup_comment"].format(libraries=libraries)] + setup_lines)
    cells = [
        _code(lid, "setup", "", setup),
        _code(
            lid,
            "selfcheck",
            "tools",
            tools_cell(lang, requires, submit_target(loaded, lesson)),
            jupyter={"source_hidden": True},
        ),
    ]
    for number, exercise in enumerate(lesson.exercises, 1):
        name, module = exercise.name, registry[exercise.name].module
        task = f"{prose['exercise'].format(number=number, name=name)}\n\n{exercise.statement.get(lang).strip()}"
        cells.append(_markdown(lid, f"task-{name}", _links_for_notebook(task, lang), exercise=name))
        if solution:
            code = exercise_source.reference_source(sources.module("solutions", module), name, set(names))
        else:
            code = exercise_source.stub_source(sources.module("exercises", module), name)
        cells.append(_code(lid, "exercise", name, code, exercise=name))
        spec = specs[name]
        cells.append(
            _code(lid, "selfcheck", name, selfcheck_cell(spec, lang, expected.literals(spec, module)), exercise=name)
        )
    return cells


def build_notebook(
    loaded: Any, lesson: Lesson, lang: Language, *, solution: bool, sources: LessonSources, expected: ExpectedValues
) -> Any:
    """The student (or, with `solution=True`, instructor) notebook of one lesson in one language."""
    registry = _registry(Path(loaded.root))
    specs = by_exercise(loaded.root)
    _check_exercises(loaded, lesson, registry, specs)
    submits = submit_target(loaded, lesson) is not None
    cells = _lesson_cells(lesson, lang, solution, submits) + _exercise_cells(
        loaded, lesson, lang, solution, registry, specs, sources, expected
    )
    notebook = v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "coursegen": {
                "format": NOTEBOOK_FORMAT,
                "course": loaded.course.id,
                "lesson": lesson.id,
                "language": lang,
                "variant": "solution" if solution else "student",
                "exercises": [exercise.name for exercise in lesson.exercises],
            },
        },
    )
    nbformat.validate(notebook)
    return notebook


def notebook_bytes(notebook: Any) -> bytes:
    """Deterministic serialisation (nbformat's own v4 JSON writer: sorted keys, indent 1, UTF-8),
    with a trailing newline. The notebook was validated when it was built."""
    text = nbjson.writes(notebook)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


# ---- writing -------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> None:
    write_atomically(path, data)


def render_notebooks(
    loaded: Any,
    *,
    students: bool = True,
    solutions: bool = False,
    cache_dir: Path | None = None,
    lessons: Iterable[str] | None = None,
    languages: Iterable[Language] | None = None,
) -> dict[str, bytes]:
    """All notebooks of the course as {relative path under _site/: bytes}; errors collected per lesson."""
    root = Path(loaded.root)
    sources = LessonSources(root)
    expected = ExpectedValues(
        root / "solutions",
        cache_dir if cache_dir is not None else root / ".coursegen-cache",
        requires=loaded.course.requires,
    )
    wanted = set(lessons) if lessons is not None else None
    outputs: dict[str, bytes] = {}
    errors: list[ContentError] = []
    for lesson in loaded.lessons:
        if not has_notebook(lesson) or (wanted is not None and lesson.id not in wanted):
            continue
        for lang in loaded.course.languages if languages is None else languages:
            variants = ([False] if students else []) + ([True] if solutions else [])
            for solution in variants:
                try:
                    notebook = build_notebook(
                        loaded, lesson, lang, solution=solution, sources=sources, expected=expected
                    )
                except ContentError as error:
                    if not any(str(e) == str(error) for e in errors):
                        errors.append(error)
                    continue
                outputs[notebook_relpath(lesson.id, lang, solution=solution)] = notebook_bytes(notebook)
    if wanted is not None and (unknown := wanted - {lesson.id for lesson in loaded.lessons}):
        errors.append(ContentError(loaded.course_file, f"no lesson named {', '.join(sorted(unknown))}"))
    if errors:
        raise ContentErrors(errors)
    return outputs


def write_notebooks(loaded: Any, staging_dir: Path, env: Any = None, *, solutions: bool | None = None) -> list[Path]:
    """Every lesson's student notebooks under `staging_dir/notebooks/<lang>/` (the build writes
    them lesson by lesson as units: coursegen/outputs/notebooks.py).

    Instructor notebooks are added only when asked (`solutions=True`, or a build whose
    `env.globals["with_solutions"]` is true), never by default: the site is public.
    The expected-value cache is `env.globals["cache_dir"]`, else `<root>/.coursegen-cache`.
    """
    settings = {
        **getattr(env, "globals", {}),
        **{k: getattr(env, k) for k in ("with_solutions", "cache_dir") if hasattr(env, k)},
    }
    if solutions is None:
        solutions = bool(settings.get("with_solutions", False))
    cache_dir = settings.get("cache_dir")
    outputs = render_notebooks(loaded, solutions=solutions, cache_dir=cache_dir)
    written = []
    for relative, data in sorted(outputs.items()):
        path = Path(staging_dir) / relative
        _write(path, data)
        written.append(path)
    return written


def write_notebook_folder(
    loaded: Any,
    out_dir: Path,
    *,
    students: bool = True,
    solutions: bool = False,
    cache_dir: Path | None = None,
    lessons: Iterable[str] | None = None,
    languages: Iterable[Language] | None = None,
) -> list[Path]:
    """Notebooks under `out_dir/<lang>/` (the instructor's own output, outside the public site)."""
    outputs = render_notebooks(
        loaded, students=students, solutions=solutions, cache_dir=cache_dir, lessons=lessons, languages=languages
    )
    written = []
    for relative, data in sorted(outputs.items()):
        path = Path(out_dir) / relative.removeprefix("notebooks/")
        _write(path, data)
        written.append(path)
    return written
