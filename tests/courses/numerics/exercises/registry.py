"""The exercise registry of the numerical-methods course: every graded function, the module it
belongs to and its kind. The build and the grader both read it; it has no dependencies."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Exercise:
    name: str                           # the function students implement
    module: str                         # exercises/<module>.py, solutions/<module>.py
    kind: Literal["function", "class"]


EXERCISES: tuple[Exercise, ...] = (
    Exercise("trapezoid", "quadrature", "function"),
    Exercise("cumulative_trapezoid", "running", "function"),
)

BY_NAME: dict[str, Exercise] = {e.name: e for e in EXERCISES}
MODULES: tuple[str, ...] = tuple(dict.fromkeys(e.module for e in EXERCISES))


def exercises_in(module: str) -> tuple[Exercise, ...]:
    """The exercises of one module, in registry order."""
    return tuple(e for e in EXERCISES if e.module == module)
