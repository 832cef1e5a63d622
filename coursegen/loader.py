"""Load the course: read every YAML file, validate it, then check what spans files.

`load_course(root)` is the only way content enters coursegen. It reads
`content/course.yaml` and `content/lessons/<id>.yaml` (through coursegen.yamlio, so
every value keeps its file:line:column), validates them against coursegen.schema, and
then runs the checks a single model cannot make:

- every lesson listed in course.yaml has a file, listed once, whose `id` matches;
- ids are unique: sections, code/figure blocks and key terms within a lesson, key
  terms across the course (they share the glossary page);
- every Text has its `zh` translation, unless the lesson sets `incomplete_translation`;
- internal links (`lesson:`, `term:`, `quiz:`, `exercise:`) resolve;
- exercise names exist in exercises/registry.py; referenced quiz files exist;
- course.yaml's `assignments:` name known lessons and exercises, once (coursegen/assignments.py);
- every formula uses only LaTeX the MathML converter knows;
- figure params fit the figure's function; code examples are valid Python syntax.

All problems are collected and raised together as ContentErrors, sorted by place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel

from . import claims, drawing, markdown, mathml
from .memo import MEMO
from .pysource import line_offset
from .errors import ContentError, ContentErrors, ErrorCollector, Location, did_you_mean
from .schema import CodeBlock, Course, FigureBlock, Lesson, NoteBlock, Text, TextBlock
from .yamlio import CACHE_DIR_NAME, M, YamlDocument, read_yaml, validate  # CACHE_DIR_NAME: re-exported


@dataclass
class LoadedCourse:
    """A validated course: the models plus where each came from."""

    root: Path
    course: Course
    lessons: list[Lesson]  # in course.yaml order
    course_file: Path
    lesson_files: dict[str, Path]  # lesson id -> content/lessons/<id>.yaml
    quiz_files: dict[str, Path] = field(default_factory=dict)  # lesson id -> content/quizzes/<quiz>.yaml
    documents: dict[str, YamlDocument] = field(default_factory=dict, repr=False)  # lesson id -> positions
    cache_dir: Path | None = None  # where parsed YAML is cached (pass to read_yaml)

    def lesson(self, lesson_id: str) -> Lesson:
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise KeyError(lesson_id)

    def neighbours(self, lesson_id: str) -> tuple[Lesson | None, Lesson | None]:
        """The lessons before and after `lesson_id` in teaching order."""
        ids = [lesson.id for lesson in self.lessons]
        index = ids.index(lesson_id)
        before = self.lessons[index - 1] if index > 0 else None
        after = self.lessons[index + 1] if index + 1 < len(self.lessons) else None
        return before, after

    def location(self, lesson_id: str, path: tuple = ()) -> Location:
        """Where a value of a lesson file was written (for errors raised after loading)."""
        document = self.documents.get(lesson_id)
        if document is None:
            return Location(str(self.lesson_files.get(lesson_id, lesson_id)))
        return document.location(path)

    def text_location(self, lesson_id: str, path: tuple, offset: int) -> Location:
        document = self.documents.get(lesson_id)
        if document is None:
            return self.location(lesson_id, path)
        return document.text_location(path, offset)


def load_course(root: Path | str, *, cache_dir: Path | str | None = None) -> LoadedCourse:
    """Read, validate and cross-check the course under `root`; raise ContentErrors on any mistake.

    Only the cache is written: parsed YAML and Markdown results in `cache_dir`
    (default `<root>/.coursegen-cache`)."""
    from .plugin_loading import load_plugins

    root = Path(root)
    cache = Path(cache_dir) if cache_dir is not None else root / CACHE_DIR_NAME
    MEMO.attach(cache)
    errors = ErrorCollector()
    by_name = _registry(root)
    try:
        load_plugins(root)  # the course's figures (and quiz answer functions)
    except ContentError as exc:
        raise ContentErrors([exc]) from None
    course_file = root / "content" / "course.yaml"
    course_doc = _read(course_file, root, errors, cache)
    course = _validate(course_doc, Course, errors) if course_doc is not None else None
    if course_doc is None or course is None:
        raise ContentErrors(errors.errors)  # course.yaml unreadable or invalid: nothing to go on
    _check_translations(course_doc, course, allow_missing=False, errors=errors)

    loaded = LoadedCourse(
        root=root, course=course, lessons=[], course_file=course_file, lesson_files={}, cache_dir=cache
    )
    _read_lessons(loaded, course_doc, cache, errors)
    for lesson in loaded.lessons:
        document = loaded.documents[lesson.id]
        _check_ids(document, lesson, errors)
        _check_translations(document, lesson, allow_missing=lesson.incomplete_translation, errors=errors)
        _check_exercises(document, lesson, by_name, errors)
        _check_quiz(document, lesson, root, loaded, errors)
        _check_code_and_figures(document, lesson, root, errors)
        for where, message in claims.lesson_problems(root, lesson):
            errors.add(document.location(where), message)
    _check_unique_terms(loaded, errors)
    if len(loaded.lessons) == len(set(course.lessons)):  # every lesson read: assignments can be checked
        from .assignments import check_assignments

        check_assignments(
            course_doc,
            course,
            {le.id: [e.name for e in le.exercises] for le in loaded.lessons},
            errors,
            by_name,
            loaded.root,
        )
    for lesson in loaded.lessons:
        _check_markdown(loaded.documents[lesson.id], lesson, loaded, errors)
    MEMO.save()
    errors.raise_if_any()
    return loaded


def _read_lessons(loaded: LoadedCourse, course_doc: YamlDocument, cache: Path, errors: ErrorCollector) -> None:
    """Read and validate every lesson listed in course.yaml, in order, into `loaded`."""
    root = loaded.root
    seen: dict[str, int] = {}
    for index, lesson_id in enumerate(loaded.course.lessons):
        where = course_doc.location(("lessons", index))
        if lesson_id in seen:
            errors.add(where, f"lesson '{lesson_id}' is listed twice (first at item {seen[lesson_id] + 1})")
            continue
        seen[lesson_id] = index
        lesson_file = root / "content" / "lessons" / f"{lesson_id}.yaml"
        if not lesson_file.is_file():
            errors.add(where, f"lesson '{lesson_id}' is listed but {_display(lesson_file, root)} does not exist")
            continue
        document = _read(lesson_file, root, errors, cache)
        lesson = _validate(document, Lesson, errors) if document is not None else None
        if document is None or lesson is None:
            continue
        if lesson.id != lesson_id:
            errors.add(
                document.location(("id",)),
                f"lesson id '{lesson.id}' does not match its file name (expected '{lesson_id}')",
            )
            continue
        loaded.lessons.append(lesson)
        loaded.lesson_files[lesson_id] = lesson_file
        loaded.documents[lesson_id] = document


# ---- reading -------------------------------------------------------------------------------


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _read(path: Path, root: Path, errors: ErrorCollector, cache: Path) -> YamlDocument | None:
    try:
        return read_yaml(path, display_name=_display(path, root), cache_dir=cache)
    except ContentError as error:
        errors.extend([error])
    except ContentErrors as many:
        errors.extend(many.errors)
    return None


def _validate(document: YamlDocument, model: type[M], errors: ErrorCollector) -> M | None:
    if not isinstance(document.data, dict):
        errors.add(
            document.location(()),
            f"expected a mapping of fields at the top of the file, got {type(document.data).__name__}",
        )
        return None
    try:
        return validate(document, model)
    except ContentErrors as many:
        errors.extend(many.errors)
        return None


# ---- walking the model ---------------------------------------------------------------------


def walk(model: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every pydantic model inside `model` (itself included) with its path of keys/indexes."""
    if isinstance(model, BaseModel):
        yield path, model
        for name in type(model).model_fields:
            value = getattr(model, name)
            if value is not None:
                yield from walk(value, path + (name,))
    elif isinstance(model, (list, tuple)):
        for index, item in enumerate(model):
            yield from walk(item, path + (index,))


def markdown_fields(lesson: Lesson) -> Iterator[tuple[tuple, str]]:
    """(path, Markdown source) of every bilingual string of a lesson, both languages (all of them
    may hold Markdown: titles and captions are rendered inline, the rest as blocks)."""
    for path, model in walk(lesson):
        if isinstance(model, (Text, TextBlock, NoteBlock)):
            for lang in ("en", "zh"):
                value = getattr(model, lang)
                if value:
                    yield path + (lang,), value


# ---- checks --------------------------------------------------------------------------------


def _check_translations(
    document: YamlDocument, model: BaseModel, *, allow_missing: bool, errors: ErrorCollector
) -> None:
    if allow_missing:
        return
    hint = " (or set 'incomplete_translation: true' in the lesson)" if isinstance(model, Lesson) else ""
    for path, node in walk(model):
        if isinstance(node, (Text, TextBlock, NoteBlock)) and node.zh is None:
            errors.add(document.location(path), f"missing translation: 'zh' is required{hint}")


def _check_ids(document: YamlDocument, lesson: Lesson, errors: ErrorCollector) -> None:
    sections: dict[str, tuple] = {}
    blocks: dict[str, tuple] = {}
    terms: dict[str, tuple] = {}
    for s_index, section in enumerate(lesson.sections):
        path = ("sections", s_index, "id")
        _unique(document, sections, section.id, path, "section", errors)
        for b_index, block in enumerate(section.blocks):
            if isinstance(block, (CodeBlock, FigureBlock)):
                _unique(document, blocks, block.id, ("sections", s_index, "blocks", b_index, "id"), "block", errors)
    for t_index, term in enumerate(lesson.key_terms):
        _unique(document, terms, term.id, ("key_terms", t_index, "id"), "key term", errors)
    exercises: dict[str, tuple] = {}
    for e_index, exercise in enumerate(lesson.exercises):
        _unique(document, exercises, exercise.name, ("exercises", e_index, "name"), "exercise", errors)


def _unique(
    document: YamlDocument, seen: dict[str, tuple], value: str, path: tuple, what: str, errors: ErrorCollector
) -> None:
    if value in seen:
        first = document.location(seen[value])
        errors.add(document.location(path), f"duplicated {what} id '{value}' (first used at line {first.line})")
    else:
        seen[value] = path


def _check_unique_terms(loaded: LoadedCourse, errors: ErrorCollector) -> None:
    seen: dict[str, str] = {}
    for lesson in loaded.lessons:
        for index, term in enumerate(lesson.key_terms):
            if term.id in seen and seen[term.id] != lesson.id:
                errors.add(
                    loaded.location(lesson.id, ("key_terms", index, "id")),
                    f"duplicated key term id '{term.id}' (already defined in lesson '{seen[term.id]}'; "
                    f"term ids are shared by the glossary)",
                )
            seen.setdefault(term.id, lesson.id)


def _registry(root: Path) -> dict[str, Any]:
    """The course's exercises by name (grader.course: an empty registry for a course without
    exercises/registry.py); a registry that cannot be loaded is a located error."""
    from grader.course import Course, CourseError

    try:
        return Course.load(root).registry.by_name
    except CourseError as exc:
        raise ContentErrors([ContentError(Location(str(root / "exercises" / "registry.py")), str(exc))]) from None


def _check_exercises(document: YamlDocument, lesson: Lesson, BY_NAME: dict[str, Any], errors: ErrorCollector) -> None:
    for index, exercise in enumerate(lesson.exercises):
        if exercise.name not in BY_NAME:
            errors.add(
                document.location(("exercises", index, "name")),
                f"unknown exercise '{exercise.name}'{did_you_mean(exercise.name, BY_NAME)} "
                f"(expected a name from exercises/registry.py: {', '.join(sorted(BY_NAME))})"
                if BY_NAME
                else f"unknown exercise '{exercise.name}': the course has no exercises/registry.py naming "
                f"its exercises (give --root the course folder, or run in it)",
            )


def _check_quiz(
    document: YamlDocument, lesson: Lesson, root: Path, loaded: LoadedCourse, errors: ErrorCollector
) -> None:
    if lesson.quiz is None:
        return
    quiz_file = root / "content" / "quizzes" / f"{lesson.quiz}.yaml"
    if quiz_file.is_file():
        loaded.quiz_files[lesson.id] = quiz_file
    else:
        errors.add(
            document.location(("quiz",)),
            f"quiz '{lesson.quiz}' not found: expected the file {_display(quiz_file, root)}",
        )


def _check_code_and_figures(document: YamlDocument, lesson: Lesson, root: Path, errors: ErrorCollector) -> None:
    for s_index, section in enumerate(lesson.sections):
        for b_index, block in enumerate(section.blocks):
            path = ("sections", s_index, "blocks", b_index)
            if isinstance(block, FigureBlock):
                for name, message in drawing.check_params(root, block.figure, dict(block.params)):
                    inside = name if isinstance(name, tuple) else (name,)
                    where = path + ("params",) + inside if name else path + ("figure",)
                    errors.add(document.location(where), message)
            elif isinstance(block, CodeBlock):
                try:
                    compile(block.code, f"<{lesson.id}:{block.id}>", "exec")
                except SyntaxError as exc:
                    offset = line_offset(block.code, (exc.lineno or 1) - 1) + max((exc.offset or 1) - 1, 0)
                    errors.add(
                        document.text_location(path + ("code",), offset),
                        f"syntax error in code example '{block.id}': {exc.msg}",
                    )


def _check_markdown(document: YamlDocument, lesson: Lesson, loaded: LoadedCourse, errors: ErrorCollector) -> None:
    for path, source in markdown_fields(lesson):
        math_spans, links = markdown.spans(source)
        for span in math_spans:
            for offset, message in mathml.check_latex(span.latex):
                errors.add(document.text_location(path, span.offset + offset), message)
        for offset, text in markdown.unconverted_math(source):
            errors.add(
                document.text_location(path, offset),
                f"math left as plain text: '{text}' (a `$` touching a digit on the outside does not "
                f"start or end math: write '$x$ 2', not '$x$2'; write \\$ for a dollar sign)",
            )
        for link in links:
            problem = link_problem(link.target, loaded)
            if problem:
                errors.add(document.text_location(path, link.offset), problem)


def link_problem(target: str, loaded: LoadedCourse) -> str | None:
    """Why an internal link does not resolve, or None when it does (or is not internal)."""
    BY_NAME = _registry(Path(loaded.root))

    if markdown.internal_url(target) is None:
        scheme = target.split(":", 1)[0] if ":" in target else ""
        if scheme and scheme.isalpha() and scheme not in ("http", "https", "mailto") and "/" not in scheme:
            return (
                f"broken link '{target}': unknown link kind '{scheme}:' "
                f"(expected one of: lesson:, term:, quiz:, exercise:, http(s)://)"
            )
        return None
    scheme, value = target.split(":", 1)
    lessons = {lesson.id: lesson for lesson in loaded.lessons}
    unloaded = set(loaded.course.lessons) - set(lessons)  # listed, but already reported as broken
    if scheme in ("lesson", "quiz") and value.partition("#")[0] in unloaded:
        return None
    if scheme == "lesson":
        lesson_id, _, section_id = value.partition("#")
        if lesson_id not in lessons:
            return f"broken link '{target}': no lesson '{lesson_id}' in course.yaml"
        if section_id and section_id not in {s.id for s in lessons[lesson_id].sections}:
            return f"broken link '{target}': lesson '{lesson_id}' has no section '{section_id}'"
    elif scheme == "term":
        if value not in {t.id for lesson in loaded.lessons for t in lesson.key_terms}:
            return f"broken link '{target}': no key term '{value}' in any lesson"
    elif scheme == "quiz":
        if value not in lessons:
            return f"broken link '{target}': no lesson '{value}' in course.yaml"
        if lessons[value].quiz is None:
            return f"broken link '{target}': lesson '{value}' has no quiz"
    elif scheme == "exercise":
        if value not in BY_NAME:
            return f"broken link '{target}': no exercise '{value}' in exercises/registry.py"
        if value not in {e.name for lesson in loaded.lessons for e in lesson.exercises}:
            return (
                f"broken link '{target}': no lesson lists exercise '{value}' under 'exercises', "
                f"so the exercises page has no entry for it"
            )
    return None
