"""The course's assignments, read from content/course.yaml into grader.reporting.assignments.Assignment.

    course_assignments(course, lesson_exercises) -> [Assignment]     the declared, or one per lesson
    check_assignments(document, course, lesson_exercises, errors, by_name)   located errors (loader, `check`)
    read_assignments(root) -> [Assignment]                           course.yaml + lessons, checked

Without `assignments:` every lesson with exercises is an assignment whose id is the lesson id
(its title the lesson's). With it, each assignment names `lessons` (all their exercises, in the
lesson's order) and/or `exercises`; `points` overrides an exercise's total; an exercise may be in
two assignments only when the later one says `shared: true` (a review, an exam).

`read_assignments` is the light path the grading commands take: it reads course.yaml and the
exercise lists of the lessons (through the YAML cache), not the lessons' prose, math or code.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Mapping

from grader.reporting.assignments import Assignment

from .errors import ErrorCollector
from .schema import Course
from .yamlio import YamlDocument


def _due(value: datetime.date | None) -> str | None:
    return None if value is None else value.isoformat()


def course_assignments(
    course: Course,
    lesson_exercises: Mapping[str, list[str]],
    lesson_titles: Mapping[str, tuple[str, str | None]] | None = None,
    root: Path | None = None,
) -> list[Assignment]:
    """The assignments of a course whose cross-file rules hold (check_assignments); `root` (the
    course folder) is where a late policy's extensions file is read from."""
    if course.assignments is None:
        titles = lesson_titles or {}
        return [
            Assignment(
                id=lesson,
                title=titles.get(lesson, (lesson, None))[0],
                title_zh=titles.get(lesson, (lesson, None))[1],
                exercises=tuple(names),
            )
            for lesson, names in lesson_exercises.items()
            if names
        ]
    found = []
    for spec in course.assignments:
        names: list[str] = []
        for lesson in spec.lessons:
            names.extend(n for n in lesson_exercises.get(lesson, []) if n not in names)
        names.extend(n for n in spec.exercises if n not in names)
        found.append(
            Assignment(
                id=spec.id,
                title=spec.title.en,
                title_zh=spec.title.zh,
                exercises=tuple(names),
                points=dict(spec.points),
                due=_due(spec.due),
                late=_late(spec.late, root),
            )
        )
    return found


def _late(spec, root: Path | None):
    """The LatePolicy of an assignment's `late:` (its extensions read from the course folder)."""
    if spec is None:
        return None
    from grader.reporting.lateness import LatePolicy, read_extensions

    extensions = read_extensions(Path(root or ".") / spec.extensions) if spec.extensions else {}
    return LatePolicy(spec.grace_minutes, spec.per_day, spec.last_day, extensions)


def check_assignments(
    document: YamlDocument,
    course: Course,
    lesson_exercises: Mapping[str, list[str]],
    errors: ErrorCollector,
    by_name: Mapping[str, Any],
    root: Path | None = None,
) -> None:
    """Every problem of course.yaml's `assignments:` as `file:line:column: message` (`by_name`:
    the course's exercises)."""
    if course.assignments is None:
        return
    if not course.assignments:
        errors.add(document.location(("assignments",)), "empty `assignments:` list; remove it or name an assignment")
        return
    seen_ids: dict[str, int] = {}
    owner: dict[str, str] = {}  # exercise -> the first assignment that has it
    for index, spec in enumerate(course.assignments):
        here = ("assignments", index)
        if spec.id in seen_ids:
            first = document.location(("assignments", seen_ids[spec.id], "id"))
            errors.add(
                document.location((*here, "id")), f"duplicated assignment id '{spec.id}' (first at line {first.line})"
            )
        seen_ids.setdefault(spec.id, index)
        if not spec.lessons and not spec.exercises:
            errors.add(
                document.location(here),
                f"assignment '{spec.id}' grades nothing; expected `lessons:` and/or `exercises:`",
            )
        mine: dict[str, tuple] = {}  # exercise -> where this assignment names it
        for j, lesson in enumerate(spec.lessons):
            where = (*here, "lessons", j)
            if lesson not in lesson_exercises:
                errors.add(
                    document.location(where),
                    f"assignment '{spec.id}': unknown lesson '{lesson}' (expected a lesson of `lessons:`"
                    f"{_suggest(lesson, lesson_exercises)})",
                )
                continue
            if not lesson_exercises[lesson]:
                errors.add(document.location(where), f"assignment '{spec.id}': lesson '{lesson}' has no exercises")
            for name in lesson_exercises[lesson]:
                if name in mine:
                    errors.add(document.location(where), f"assignment '{spec.id}': exercise '{name}' is named twice")
                mine.setdefault(name, where)
        for j, name in enumerate(spec.exercises):
            where = (*here, "exercises", j)
            if name not in by_name:
                errors.add(
                    document.location(where),
                    f"assignment '{spec.id}': unknown exercise '{name}' (expected a name from exercises/registry.py"
                    f"{_suggest(name, by_name)})",
                )
                continue
            if name in mine:
                errors.add(
                    document.location(where),
                    f"assignment '{spec.id}': exercise '{name}' is named twice (also at line "
                    f"{document.location(mine[name]).line})",
                )
            mine.setdefault(name, where)
        for name in spec.points:
            if name not in mine:
                errors.add(
                    document.location((*here, "points", name)),
                    f"assignment '{spec.id}': points for '{name}', which it does not grade "
                    f"(its exercises: {', '.join(mine) or 'none'})",
                )
        for name, where in mine.items():
            if name in owner and not spec.shared:
                errors.add(
                    document.location(where),
                    f"exercise '{name}' is already in assignment '{owner[name]}'; an exercise is graded in one "
                    f"assignment (set `shared: true` on '{spec.id}' if it re-grades earlier exercises)",
                )
            owner.setdefault(name, spec.id)
        if spec.late is not None and spec.due is None:
            errors.add(document.location((*here, "late")), f"assignment '{spec.id}': `late:` needs a `due:` date")
        if spec.late is not None and spec.late.extensions and root is not None:
            from grader.reporting.lateness import LatePolicyError, read_extensions

            try:
                read_extensions(Path(root) / spec.late.extensions)
            except LatePolicyError as exc:
                errors.add(document.location((*here, "late", "extensions")), str(exc))


def _suggest(name: str, known) -> str:
    from .errors import did_you_mean

    return did_you_mean(name, known) if known else ""


def _lesson_title(data: object, lesson: str) -> tuple[str, str | None]:
    title = data.get("title") if isinstance(data, dict) else None
    if not isinstance(title, dict) or not isinstance(title.get("en"), str):
        return lesson, None
    zh = title.get("zh")
    return title["en"], zh if isinstance(zh, str) else None


def _lesson_exercises(data: object) -> list[str]:
    exercises = data.get("exercises") if isinstance(data, dict) else None
    if not isinstance(exercises, list):
        return []
    return [e["name"] for e in exercises if isinstance(e, dict) and isinstance(e.get("name"), str)]


def read_assignments(root: Path | str) -> list[Assignment]:
    """The course's assignments, checked (ContentErrors, located, on any mistake). Reads only
    course.yaml and each lesson's `exercises:` names (lessons themselves: `coursegen check`)."""
    from .yamlio import CACHE_DIR_NAME, read_yaml, validate

    root = Path(root)
    cache = root / CACHE_DIR_NAME
    errors = ErrorCollector()
    course_file = root / "content" / "course.yaml"
    shown = "content/course.yaml"
    try:
        document = read_yaml(course_file, shown, cache_dir=cache)
        course = validate(document, Course)
    except Exception as exc:  # noqa: BLE001 - yamlio raises ContentError(s); anything else is a read error
        from .errors import ContentError, ContentErrors

        if isinstance(exc, (ContentError, ContentErrors)):
            raise
        raise ContentError(shown, f"cannot read the course ({exc})") from None
    lessons: dict[str, list[str]] = {}
    titles: dict[str, tuple[str, str | None]] = {}
    for lesson in course.lessons:
        path = root / "content" / "lessons" / f"{lesson}.yaml"
        data = read_yaml(path, f"content/lessons/{lesson}.yaml", cache_dir=cache).data if path.is_file() else {}
        lessons[lesson] = _lesson_exercises(data)
        titles[lesson] = _lesson_title(data, lesson)
    from grader.course import Course as LoadedCode

    check_assignments(document, course, lessons, errors, LoadedCode.load(root).registry.by_name, root)
    errors.raise_if_any()
    return course_assignments(course, lessons, titles, root)


def definition_for(root: Path | str, assignment_id: str, checks_dir: Path | str | None = None):
    """The definition (grader.reporting.assignments.Definition) of the course's assignment `assignment_id`:
    its exercises with their points (overrides, else the checks' declared points). Raises
    ContentErrors for a broken course.yaml, grader.reporting.assignments.AssignmentError otherwise."""
    from grader.reporting.assignments import check_points, find, resolve

    root = Path(root)
    assignment = find(read_assignments(root), assignment_id)
    return resolve(assignment, check_points(Path(checks_dir) if checks_dir else root / "grader" / "checks"))
