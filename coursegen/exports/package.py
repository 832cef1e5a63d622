"""The grading package an export ships, and the lesson facts it is built from.

Both exports ship a pip-installable folder holding a copy of the engine's grader with the
course's checks, the course's exercise registry, and the engine's command line
(coursegen/cli.py and coursegen/commands/, shipped as the package `coursegen_cli`, not a
generic `cli`: its `coursegen grade` is what they run):

* `classroom`: the checks filtered down to the PUBLIC checks of the lesson's exercises,
  a recording of the reference's answers to them (grader/replay/), and the
  `coursegen_feedback` command; no solutions/, no mistakes, no hidden checks.
* `gradescope`: the whole grader, checks, solutions and mistakes (Gradescope's container
  is out of students' reach).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ContentError, Location
from ..pysource import top_level_bindings
from .files import ExportError, copy_file, render, write_text
from .requirements import package_requirements

# What the package takes from the engine (installed or a checkout), whatever the course root:
# the grader (its checks come from the course) and the command line, whose `grade` it runs:
# coursegen/cli.py becomes coursegen_cli/__init__.py and coursegen/commands/ coursegen_cli/commands/
# (they import each other relatively, and the rest of coursegen only inside the building commands).
ENGINE_GRADER = Path(__file__).resolve().parents[2] / "grader"
ENGINE_CLI = Path(__file__).resolve().parents[1] / "cli.py"
ENGINE_COMMANDS = Path(__file__).resolve().parents[1] / "commands"
SHIPPED_CLI = "coursegen_cli"  # the command line's package name in a grading package
SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}
SKIPPED_SUFFIXES = {".pyc", ".pyo", ".sqlite", ".sqlite-wal", ".sqlite-shm"}
# grader modules no grading package ships, with the reason: a Gradescope container or a student's
# Classroom runner grades one submission in place, never on a Dask cluster (`--scheduler`), so the
# cluster client/worker and its optional `distributed` dependency stay out of the package.
NOT_SHIPPED = {
    "grader/scaleout/cluster.py": "grading on a Dask cluster (coursegen grade --scheduler) is for instructors' machines",
}


@dataclass(frozen=True)
class LessonExercises:
    lesson_id: str
    title_en: str
    title_zh: str
    names: tuple[str, ...]  # exercise names, in the lesson's order
    modules: tuple[str, ...]  # their modules, in first-seen order


def lesson_exercises(loaded, lesson_id: str) -> LessonExercises:
    """The lesson's graded exercises, from a loaded (validated) course; ContentError otherwise."""
    from grader.course import Course

    BY_NAME = Course.load(loaded.root).registry.by_name
    try:
        lesson = loaded.lesson(lesson_id)
    except KeyError:
        known = ", ".join(lesson.id for lesson in loaded.lessons)
        raise ContentError(
            Location(str(loaded.course_file)), f"no lesson {lesson_id!r} in the course; expected one of: {known}"
        ) from None
    names = tuple(ref.name for ref in lesson.exercises)
    if not names:
        raise ContentError(
            loaded.location(lesson_id, ("exercises",)),
            f"lesson {lesson_id!r} has no exercises, so there is nothing to grade; expected an `exercises:` list",
        )
    modules = tuple(dict.fromkeys(BY_NAME[name].module for name in names))
    zh = lesson.title.zh or lesson.title.en
    return LessonExercises(lesson_id, lesson.title.en, zh, names, modules)


def assignment_exercises(loaded, lesson_id: str | None, assignment_id: str | None):
    """(LessonExercises, Definition) of what an export grades: the course assignment `assignment_id`
    (content/course.yaml `assignments:`, which may span lessons), or the lesson `lesson_id` as the
    assignment of its exercises (id = the lesson's). ExportError when neither or both are given, or
    the assignment cannot be used."""
    from grader.course import Course
    from grader.reporting.assignments import Assignment, AssignmentError, check_points, find, resolve

    from ..assignments import course_assignments

    if (lesson_id is None) == (assignment_id is None):
        raise ExportError("give --lesson ID or --assignment ID (one of them)")
    root = Path(loaded.root)
    exercises = Course.load(root).registry.by_name
    try:
        if assignment_id is not None:
            chosen = find(
                course_assignments(
                    loaded.course,
                    {le.id: [e.name for e in le.exercises] for le in loaded.lessons},
                    {le.id: (le.title.en, le.title.zh) for le in loaded.lessons},
                    root,
                ),
                assignment_id,
            )
            lesson = LessonExercises(
                chosen.id,
                chosen.title,
                chosen.title_zh or chosen.title,
                chosen.exercises,
                tuple(dict.fromkeys(exercises[name].module for name in chosen.exercises)),
            )
        else:
            assert lesson_id is not None
            lesson = lesson_exercises(loaded, lesson_id)
            chosen = Assignment(lesson.lesson_id, lesson.title_en, lesson.names, title_zh=lesson.title_zh)
        return lesson, resolve(chosen, check_points(root / "grader" / "checks"))
    except AssignmentError as exc:
        raise ExportError(str(exc)) from None


def expected_files(loaded, names: tuple[str, ...]) -> dict[str, list[str]]:
    """What a student of an assignment hands in: the notebooks of the lessons that hold its
    exercises (as the site offers them, `<lesson>.ipynb`), or the exercise modules (`<module>.py`)."""
    from grader.course import Course

    by_name = Course.load(Path(loaded.root)).registry.by_name
    wanted = set(names)
    notebooks = [f"{le.id}.ipynb" for le in loaded.lessons if wanted & {e.name for e in le.exercises}]
    modules = [f"{module}.py" for module in dict.fromkeys(by_name[name].module for name in names)]
    return {"notebooks": notebooks, "modules": modules}


# ---- filtering the checks ---------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _marks(decorators: list[ast.expr]) -> tuple[str | None, bool]:
    """(exercise name, hidden) from a list of pytest mark expressions."""
    exercise, hidden = None, False
    for decorator in decorators:
        name = _dotted(decorator)
        if name.endswith("mark.hidden"):
            hidden = True
        elif name.endswith("mark.exercise") and isinstance(decorator, ast.Call) and decorator.args:
            first = decorator.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                exercise = first.value
    return exercise, hidden


def _module_marks(tree: ast.Module) -> tuple[str | None, bool]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            value = node.value
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            return _marks(items)
    return None, False


@dataclass(frozen=True)
class CheckDefinition:
    name: str
    exercise: str | None
    hidden: bool
    first_line: int  # 1-based, decorators included
    last_line: int
    source: str


def check_definitions(path: Path) -> list[CheckDefinition]:
    """Every test function or class of a check module, with its exercise and visibility."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    module_exercise, module_hidden = _module_marks(tree)
    lines = source.splitlines()
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name.lower().startswith(
            "test"
        ):
            exercise, hidden = _marks(node.decorator_list)
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.append(
                CheckDefinition(
                    node.name,
                    exercise or module_exercise,
                    hidden or module_hidden,
                    first,
                    node.end_lineno or node.lineno,
                    "\n".join(lines[first - 1 : node.end_lineno]),
                )
            )
    return found


def _references(node: ast.stmt) -> set[str]:
    """Names a definition uses: loaded names, and its parameters (fixtures are requested by name)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        names |= {a.arg for a in node.args.args + node.args.kwonlyargs}
    return names


def _unused_helpers(tree: ast.Module, kept_tests: list[str]) -> list[ast.stmt]:
    """Helpers that no kept check reaches (those of hidden checks may hold hidden data)."""
    bindings = top_level_bindings(tree)
    reached: set[str] = set()
    pending = list(kept_tests)
    while pending:
        name = pending.pop()
        for used in _references(bindings[name]):
            if used in bindings and used not in reached:
                reached.add(used)
                pending.append(used)
    keep_nodes = {id(bindings[name]) for name in reached | set(kept_tests) | {"pytestmark"} if name in bindings}
    unused = []
    for name, node in bindings.items():
        is_test = name.lower().startswith("test")
        if not is_test and not name.startswith("__") and id(node) not in keep_nodes and node not in unused:
            unused.append(node)
    return unused


def public_checks_source(path: Path, keep: set[str]) -> str | None:
    """The check module with only the public checks of the exercises in `keep`, and the helpers
    they use; None when no check is left."""
    definitions = check_definitions(path)
    kept = [d for d in definitions if not d.hidden and d.exercise in keep]
    if not kept:
        return None
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    remove: set[int] = set()
    for definition in definitions:
        if definition not in kept:
            remove.update(range(definition.first_line - 1, definition.last_line))
    for node in _unused_helpers(ast.parse(source), [d.name for d in kept]):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        remove.update(range(first - 1, node.end_lineno or node.lineno))
    text = "\n".join(line for i, line in enumerate(lines) if i not in remove) + "\n"
    return re.sub(r"\n{4,}", "\n\n\n", text)


# ---- the package ------------------------------------------------------------------------------


def _module_name(relative: Path) -> str:
    """grader/scaleout/cluster.py -> grader.scaleout.cluster"""
    return ".".join(relative.with_suffix("").parts)


def _module_level_imports(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, dotted module) of every import a module runs when it loads (not inside a def or
    `if TYPE_CHECKING:`); `from a import b` yields both `a` and `a.b`, relative imports resolved
    against `package` (the module's own package, e.g. "grader")."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.If) and _dotted(node.test).endswith("TYPE_CHECKING"):
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                base = ".".join([*parts[: len(parts) - (node.level - 1)], *([base] if base else [])])
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def check_nothing_imports_the_unshipped(dest: Path) -> None:
    """ExportError when a shipped .py file imports a module of NOT_SHIPPED when it loads (the
    package would not even import); inside a function (the code path the package never takes)
    it is allowed."""
    unshipped = {_module_name(Path(relative)): relative for relative in NOT_SHIPPED}
    problems = []
    for path in sorted(dest.rglob("*.py")):
        relative = path.relative_to(dest)
        package = ".".join(relative.parent.parts)  # grader/scaleout/batch.py and grader/__init__.py: "grader"
        for line, module in _module_level_imports(path, package):
            if module in unshipped:
                problems.append(
                    f"{relative.as_posix()}:{line}: imports `{module}` at module level, which the "
                    f"grading package does not ship ({NOT_SHIPPED[unshipped[module]]}); "
                    "import it inside the function that needs it"
                )
    if problems:
        raise ExportError("the grading package would not import:\n  " + "\n  ".join(problems))


def _tree_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not (set(p.relative_to(folder).parts) & SKIPPED_PARTS) and p.suffix not in SKIPPED_SUFFIXES
    )


def write_command_line(dest: Path) -> None:
    """The engine's command line as the package `coursegen_cli` in `dest` (the package has no
    `coursegen`): coursegen/cli.py as its __init__.py, coursegen/commands/ as its commands/."""
    copy_file(ENGINE_CLI, dest / SHIPPED_CLI / "__init__.py")
    for path in _tree_files(ENGINE_COMMANDS):
        if path.suffix == ".py":
            copy_file(path, dest / SHIPPED_CLI / "commands" / path.relative_to(ENGINE_COMMANDS))


def write_grader_package(
    root: Path, dest: Path, lesson: LessonExercises, *, public_only: bool, kind: str = "lesson"
) -> None:
    """Write the pip-installable grading package into `dest` (an empty folder).

    `public_only` (Classroom): grader/ minus every check that is hidden or of another exercise,
    exercises/registry.py only, and no solutions/. Otherwise (Gradescope) the whole grader,
    exercises and solutions. Neither ships the modules of NOT_SHIPPED. The dependencies in its pyproject.toml are derived from what the
    package's .py files import (requirements.py), so any module the caller adds must already be
    in `dest`.
    """
    for path in _tree_files(ENGINE_GRADER):  # the engine's grader, without any course's checks
        relative = Path("grader") / path.relative_to(ENGINE_GRADER)
        if relative.as_posix() not in NOT_SHIPPED and relative.parts[1] != "checks":
            copy_file(path, dest / relative)
    checks_dir = root / "grader" / "checks"  # the course's checks
    for path in _tree_files(checks_dir):
        relative = path.relative_to(root)
        is_check_module = path.parent == checks_dir and path.name.startswith("test_") and path.suffix == ".py"
        if public_only and is_check_module:
            text = public_checks_source(path, set(lesson.names))
            if text is not None:
                write_text(dest / relative, text)
            continue
        copy_file(path, dest / relative)
    if public_only:
        for name in ("__init__.py", "registry.py"):
            copy_file(root / "exercises" / name, dest / "exercises" / name)
        packages = ["grader*", "exercises", "coursegen_feedback", f"{SHIPPED_CLI}*"]
    else:
        for folder in ("exercises", "solutions"):
            for path in _tree_files(root / folder):
                copy_file(path, dest / path.relative_to(root))
        packages = ["grader*", "exercises*", "solutions*", f"{SHIPPED_CLI}*"]
    write_command_line(dest)
    from grader.course_requires import REQUIRES_JSON, course_requirements

    requires = tuple(course_requirements(root))
    if requires:  # the course's requires: (what the warm worker preloads where there is no course.yaml)
        write_text(dest / "exercises" / REQUIRES_JSON, json.dumps(list(requires)) + "\n")
    from grader.course_limits import LIMITS_JSON, course_limits

    limits = course_limits(root)
    if limits:  # the course's limits: (the sandbox's, where there is no course.yaml)
        write_text(dest / "exercises" / LIMITS_JSON, json.dumps(limits, sort_keys=True) + "\n")
    check_nothing_imports_the_unshipped(dest)
    write_text(
        dest / "pyproject.toml",
        render(
            "pyproject.toml.j2",
            name=f"coursegen-grader-{lesson.lesson_id}",
            packages=packages,
            requirements=package_requirements(dest, requires),
            feedback=public_only,
            unit=kind,  # what a feedback package grades: "lesson" or "assignment"
        ),
    )
