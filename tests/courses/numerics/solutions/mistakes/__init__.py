"""The catalogue of typical mistakes.

Each mistake is a complete, wrong definition of one exercise (a function or a class),
written the way a student would plausibly get it wrong, and decorated with the hint
that student should read:

    @mistake(target="trapezoid", id="trapezoid-full-ends",
             hint={"en": "...", "zh": "..."})
    def trapezoid(f, a, b, n):
        ...

The grader runs a mistake in the parent (it is trusted code) to recognise a student's
output; `coursegen verify` appends `Mistake.source` to the reference module's source to
build a "mistaken submission" and proves the checks catch it and show the hint.
"""
from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

_REGISTERED: list["Mistake"] = []


@dataclass(frozen=True)
class Mistake:
    id: str                 # unique, kebab-case: "trapezoid-full-ends"
    target: str             # the exercise name it replaces: "trapezoid"
    module: str             # the exercise module: "quadrature"
    obj: Any = field(repr=False)   # the wrong function or class
    hint: dict[str, str] = field(repr=False)  # {"en": ..., "zh": ...}

    @property
    def source(self) -> str:
        """The definition without its @mistake decorator, named as the target.

        Found by this mistake's id in the decorator, not by name: a file may define several
        mistaken `class Model`, and inspect.getsource would return the first of them."""
        path = Path(inspect.getsourcefile(self.obj))
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and self.id in _decorator_ids(node):
                return "\n".join(lines[node.lineno - 1: node.end_lineno]) + "\n"
        raise LookupError(f"mistake {self.id!r}: no decorated definition in {path}")


def _decorator_ids(node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The `id=` values of a definition's decorators."""
    return [keyword.value.value
            for decorator in node.decorator_list
            for keyword in getattr(decorator, "keywords", [])
            if keyword.arg == "id" and isinstance(keyword.value, ast.Constant)]


def mistake(*, target: str, id: str, hint: dict[str, str]) -> Callable[[Any], Any]:
    """Register the decorated definition as a catalogued mistake of `target`."""
    if set(hint) != {"en", "zh"} or not all(hint.values()):
        raise ValueError(f"mistake {id!r}: hint needs non-empty 'en' and 'zh'")

    def register(obj: Any) -> Any:
        if obj.__name__ != target:
            raise ValueError(f"mistake {id!r}: define it as {target!r}, not {obj.__name__!r}")
        module = obj.__module__.rsplit(".", 1)[-1]
        if any(m.id == id for m in _REGISTERED):
            raise ValueError(f"mistake id {id!r} is used twice")
        _REGISTERED.append(Mistake(id=id, target=target, module=module, obj=obj, hint=dict(hint)))
        return obj

    return register


def catalogue(module: str | None = None) -> list[Mistake]:
    """All catalogued mistakes (of one exercise module, if given), in definition order."""
    from exercises.registry import MODULES

    for name in MODULES if module is None else (module,):
        try:
            importlib.import_module(f"solutions.mistakes.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"solutions.mistakes.{name}":
                raise
    return [m for m in _REGISTERED if module is None or m.module == module]


def for_target(target: str) -> list[Mistake]:
    """The catalogued mistakes of one exercise name."""
    from exercises.registry import BY_NAME

    return [m for m in catalogue(BY_NAME[target].module) if m.target == target]
