"""Which exercises a submission holds, from its course's registry (grader.course.Course): the
exercise names its code defines, the module a renamed file's name contains
(`smith_123_vectors-1.py`), the lesson a notebook's name contains (`dot-product.ipynb`). Nothing
here runs the code: it is only parsed."""

from __future__ import annotations

import ast
import re

from grader.course import Course


def defined_exercise_names(tree: ast.Module, course: Course) -> set[str]:
    """Exercise names bound by top-level statements (def, class, assignment, import), also
    inside top-level if/try/with blocks."""
    names: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            for block in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.If, ast.Try, ast.With)) and hasattr(node, block):
                    visit(getattr(node, block))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return names & set(course.registry.by_name)


def names_by_pattern(text: str, course: Course) -> set[str]:
    """Best effort for code that does not parse: `def name` / `class name` at line start."""
    found = re.findall(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.MULTILINE)
    return set(found) & set(course.registry.by_name)


def exercises_named_in(stem: str, course: Course) -> tuple[str, ...]:
    """For a renamed file that defines nothing readable (`smith_123_vectors-1.py` with a syntax
    error): the module whose name is one of the words of the file name, if exactly one is."""
    words = set(re.split(r"[^A-Za-z0-9]+", stem.lower()))
    modules = [m for m in course.registry.modules if m in words or m.replace("_", "") in words]
    return tuple(e.name for e in course.registry.exercises_in(modules[0])) if len(modules) == 1 else ()


def exercises_of_lesson(stem: str, course: Course) -> tuple[str, ...]:
    """For a notebook that cannot be read: the exercises of the lesson its name contains
    (`dot-product.ipynb`, `smith_dot-product (1).ipynb`), read from the course's content/lessons/<id>.yaml."""
    lessons_dir = course.root / "content" / "lessons"
    try:
        lessons = sorted(p.stem for p in lessons_dir.glob("*.yaml"))
    except OSError:
        return ()
    lowered = stem.lower()
    matches = [lesson for lesson in lessons if lesson in lowered]
    if len(matches) != 1:
        return ()
    names = re.findall(
        r"^\s*-\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$",
        _lesson_exercises_block((lessons_dir / f"{matches[0]}.yaml").read_text("utf-8")),
        re.MULTILINE,
    )
    return tuple(e.name for e in course.registry.exercises if e.name in names)


def _lesson_exercises_block(text: str) -> str:
    """The top-level `exercises:` block of a lesson YAML file."""
    found = re.search(r"^exercises:\s*\n((?:[ \t-].*\n?|\n)*)", text, re.MULTILINE)
    return found.group(1) if found else ""


def exercises_of_modules_defining(names: set[str], course: Course) -> tuple[str, ...]:
    modules = {course.registry.by_name[n].module for n in names}
    return tuple(e.name for e in course.registry.exercises if e.module in modules)
