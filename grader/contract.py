"""The course contract: the names a course's own code uses to describe itself to the engine.

Like pytest's hookspec, this is the one place where the contract is defined; a course holds data
and its own code only, never a copy of this machinery:

    exercises/registry.py          EXERCISES = (Exercise("dot", "vectors", "function"), ...)
    solutions/mistakes/<module>.py @mistake(target="dot", id="dot-no-sum", hint={"en": ..., "zh": ...})
                                   def dot(a, b): ...   (a complete, wrong definition)

The build-time interface (answer functions, oracles, figures, self-checks, experiments) is
`coursegen.plugin`, which re-exports these names too; the grading packages an export ships carry
`grader/` only, so code that ships with the grader (the registry, references, mistakes) imports
from here. How a course is found and loaded is `grader.course`.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal


@dataclass(frozen=True)
class Exercise:
    name: str  # the function or class name students implement
    module: str  # the module it lives in: exercises/<module>.py, solutions/<module>.py
    kind: Literal["function", "class"]


@dataclass(frozen=True)
class Mistake:
    id: str  # unique in its course, kebab-case: "dot-no-sum"
    target: str  # the exercise name it replaces: "dot"
    module: str  # the exercise module: "vectors"
    obj: Any = field(repr=False)  # the wrong function or class
    hint: dict[str, str] = field(repr=False)  # {"en": ..., "zh": ...}
    course: str = field(default="", repr=False, compare=False)  # the package it was loaded under

    @property
    def source(self) -> str:
        """The definition without its @mistake decorator, named as the target.

        Found by this mistake's id in the decorator, not by name: a file may define several
        mistaken `class Model`, and inspect.getsource would return the first of them."""
        path = Path(inspect.getsourcefile(self.obj) or "")
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and self.id in _decorator_ids(node):
                return "\n".join(lines[node.lineno - 1 : node.end_lineno]) + "\n"
        raise LookupError(f"mistake {self.id!r}: no decorated definition in {path}")


def _decorator_ids(node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The `id=` values of a definition's decorators."""
    return [
        keyword.value.value
        for decorator in node.decorator_list
        for keyword in getattr(decorator, "keywords", [])
        if keyword.arg == "id" and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str)
    ]


# Every mistake registered by any loaded course, in definition order; grader.course keeps its own
# course's by the package its modules were loaded under (two courses never see each other's).
_REGISTERED: list[Mistake] = []


def mistake(*, target: str, id: str, hint: dict[str, str]) -> Callable[[Any], Any]:
    """Register the decorated definition as a catalogued mistake of `target`."""
    if set(hint) != {"en", "zh"} or not all(hint.values()):
        raise ValueError(f"mistake {id!r}: hint needs non-empty 'en' and 'zh'")

    def register(obj: Any) -> Any:
        if obj.__name__ != target:
            raise ValueError(f"mistake {id!r}: define it as {target!r}, not {obj.__name__!r}")
        module_name = obj.__module__
        course = module_name.split(".solutions.mistakes.")[0] if ".solutions.mistakes." in module_name else ""
        if any(m.id == id and m.course == course for m in _REGISTERED):
            raise ValueError(f"mistake id {id!r} is used twice")
        _REGISTERED.append(
            Mistake(
                id=id, target=target, module=module_name.rsplit(".", 1)[-1], obj=obj, hint=dict(hint), course=course
            )
        )
        return obj

    return register


def forget(course: str) -> None:
    """Drop the mistakes of the course loaded under package `course` (before it loads again)."""
    _REGISTERED[:] = [m for m in _REGISTERED if m.course != course]


def registered(course: str) -> list[Mistake]:
    """The mistakes registered so far by the course loaded under package `course`."""
    return [m for m in _REGISTERED if m.course == course]
