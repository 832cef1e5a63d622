"""`coursegen check`: everything `coursegen build` validates that needs no code to run.

    check_course(root) -> CheckSummary      raises ContentErrors listing every problem

1. lessons and course.yaml: `load_course` (YAML, schema, ids, translations, links, math,
   exercise names, figure parameters, code syntax);
2. quizzes: schema, and the static part of the quality gate (coursegen.quiz.gate.static_problems):
   lesson link, counts, objectives covered, translations, hand-written answers and distractors,
   math, answer function names (with a did-you-mean), their oracles, parameter names and values;
3. exercises named by lessons: a self-check spec (selfchecks(...) in content/plugins/), a reference in
   solutions/<module>.py and a stub in exercises/<module>.py that define the name, and at least
   one check in grader/checks/test_*.py marked `@pytest.mark.exercise(name)`;
4. check files: every grader/checks/test_*.py parses, and names only registered exercises.

Reading is by parsing (ast), never importing: the check imports no torch and runs no course code.
What only `build`/`verify` can find: code examples that fail when run, answers that do not
compute, too few distinct variants, keys that disagree with their oracle, checks that fail.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from .errors import ContentError, ContentErrors, Location, did_you_mean
from .loader import LoadedCourse, load_course
from .pysource import top_level_definitions


@dataclass
class CheckSummary:
    lessons: int
    quizzes: int
    questions: int
    exercises: int
    check_files: int

    def line(self) -> str:
        return (
            f"OK: {self.lessons} lesson(s), {self.quizzes} quiz(zes) with {self.questions} question(s), "
            f"{self.exercises} exercise(s) and {self.check_files} check file(s) checked."
        )


def check_course(root: Path | str) -> CheckSummary:
    root = Path(root)
    loaded = load_course(root)  # raises ContentErrors on its own mistakes
    errors: list[ContentError] = []
    quizzes, questions = _check_quizzes(loaded, errors)
    exercises = _check_exercises(loaded, errors)
    before = len(errors)
    check_files = _check_check_files(root, errors)
    if len(errors) == before:  # the check files read: every assignment's exercises have points
        _check_assignment_points(loaded, errors)
    if errors:
        raise ContentErrors(errors)
    return CheckSummary(len(loaded.lessons), quizzes, questions, exercises, check_files)


def _check_quizzes(loaded: LoadedCourse, errors: list[ContentError]) -> tuple[int, int]:
    from .quiz.gate import static_problems
    from .quiz.load import course_quizzes

    try:
        quizzes = course_quizzes(loaded.root)
    except ContentErrors as exc:
        errors.extend(exc.errors)
        return 0, 0
    except ContentError as exc:
        errors.append(exc)
        return 0, 0
    for quiz in quizzes:
        errors.extend(static_problems(quiz))
    return len(quizzes), sum(len(q.quiz.questions) for q in quizzes)


def _defined_names(path: Path) -> set[str] | None:
    """Top-level function and class names of a Python file (None: missing or not Python)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    return set(top_level_definitions(tree))


def _marked_exercises(root: Path) -> dict[str, list[str]]:
    """exercise name -> check files (relative) that mark a check with it."""
    marked: dict[str, list[str]] = {}
    for check_file in sorted((root / "grader" / "checks").glob("test_*.py")):
        for name in marked_names(check_file):
            marked.setdefault(name, []).append(check_file.name)
    return marked


def marked_names(check_file: Path) -> set[str]:
    """The exercises the checks of one check file are marked with (on the function, its class or
    the module's `pytestmark`), as grader.reporting.assignments reads them."""
    from grader.reporting.assignments import AssignmentError, read_check_marks

    try:
        return {check.exercise for check in read_check_marks(check_file) if check.exercise is not None}
    except AssignmentError:
        return set()  # _check_check_files and _check_assignment_points report what cannot be read


def _check_exercises(loaded: LoadedCourse, errors: list[ContentError]) -> int:
    from grader.course import Course

    from .selfcheck_cases import by_exercise

    root = Path(loaded.root)
    BY_NAME = Course.load(root).registry.by_name
    marked = _marked_exercises(root)
    count = 0
    for lesson in loaded.lessons:
        for position, exercise in enumerate(lesson.exercises):
            entry = BY_NAME.get(exercise.name)
            if entry is None:
                continue  # load_course reported it
            count += 1
            where = loaded.location(lesson.id, ("exercises", position, "name"))
            if exercise.name not in by_exercise(root):
                errors.append(
                    ContentError(
                        where,
                        f"exercise '{exercise.name}' has no self-check spec in "
                        f"content/plugins/ (selfchecks(...): the notebook's public checks)",
                    )
                )
            for folder, role in (("solutions", "reference"), ("exercises", "stub")):
                path = root / folder / f"{entry.module}.py"
                names = _defined_names(path)
                if names is None:
                    errors.append(
                        ContentError(
                            where,
                            f"exercise '{exercise.name}': {folder}/{entry.module}.py "
                            f"(its {role}) is missing or is not valid Python",
                        )
                    )
                elif exercise.name not in names:
                    errors.append(
                        ContentError(
                            where,
                            f"exercise '{exercise.name}': {folder}/{entry.module}.py "
                            f"defines no '{exercise.name}' (its {role})",
                        )
                    )
            if exercise.name not in marked:
                errors.append(
                    ContentError(
                        where,
                        f"exercise '{exercise.name}' has no check: mark one in "
                        f"grader/checks/test_{entry.module}.py with "
                        f'@pytest.mark.exercise("{exercise.name}")',
                    )
                )
    return count


def _check_check_files(root: Path, errors: list[ContentError]) -> int:
    from grader.course import Course

    BY_NAME = Course.load(root).registry.by_name

    from grader.reporting.assignments import AssignmentError, read_check_marks

    files = sorted((root / "grader" / "checks").glob("test_*.py"))
    for check_file in files:
        display = check_file.relative_to(root).as_posix()
        try:
            ast.parse(check_file.read_text(encoding="utf-8"), filename=display)
        except SyntaxError as exc:
            errors.append(
                ContentError(
                    Location(display, exc.lineno or 0, exc.offset or 0),
                    f"the check file is not valid Python: {exc.msg}",
                )
            )
            continue
        except (OSError, ValueError) as exc:
            errors.append(ContentError(display, f"cannot read the check file: {exc}"))
            continue
        try:
            checks = read_check_marks(check_file, display)
        except AssignmentError as exc:  # points that cannot be counted without running the check
            errors.append(ContentError(display, str(exc)))
            continue
        for check in checks:
            if check.exercise is not None and check.exercise not in BY_NAME:
                errors.append(
                    ContentError(
                        Location(display, check.line, check.column),
                        f"check '{check.name}' is marked with unknown exercise {check.exercise!r}"
                        f"{did_you_mean(check.exercise, BY_NAME)} (expected a name from "
                        f"exercises/registry.py)",
                    )
                )
    return len(files)


def _check_assignment_points(loaded: LoadedCourse, errors: list[ContentError]) -> None:
    """Every exercise a declared assignment names directly is graded by a check with points
    (grader/reporting/assignments.py reads the checks' declared points), located at the assignment in
    course.yaml. A lesson's exercises are checked with the lesson (_check_exercises)."""
    from grader.reporting.assignments import AssignmentError, check_points

    from .assignments import course_assignments
    from .yamlio import read_yaml

    try:  # always read: a mark whose points cannot be counted without running it is refused here
        points = check_points(loaded.root / "grader" / "checks")
    except AssignmentError as exc:
        errors.append(ContentError(Location("grader/checks"), str(exc)))
        return
    if loaded.course.assignments is None:
        return  # one assignment per lesson: the lessons' own check covers them
    lessons = {lesson.id: [e.name for e in lesson.exercises] for lesson in loaded.lessons}
    in_lessons = {name for names in lessons.values() for name in names}
    document = read_yaml(loaded.course_file, "content/course.yaml", cache_dir=loaded.cache_dir)
    for index, assignment in enumerate(course_assignments(loaded.course, lessons, root=loaded.root)):
        missing = [n for n in assignment.exercises if not points.get(n) and n not in in_lessons]
        if missing:
            errors.append(
                ContentError(
                    document.location(("assignments", index)),
                    f"assignment {assignment.id}: no check with points grades {', '.join(missing)} "
                    "(expected @pytest.mark.exercise(name) on a check in grader/checks/test_*.py)",
                )
            )
