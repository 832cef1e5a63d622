"""The exercise registry: the one piece of data that the build (coursegen) and the
grader both read. It names every graded function or class, the module it belongs to,
and whether it is a function or a class. It has no dependencies, so it can
ship in a student starter repository.

Points live with the checks (grader/checks), task statements with the lessons
(content/lessons/*.yaml); this file only says what exists and where.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Exercise:
    name: str                           # the function or class name students implement
    module: str                         # the module it lives in: exercises/<module>.py, solutions/<module>.py
    kind: Literal["function", "class"]


EXERCISES: tuple[Exercise, ...] = (
    Exercise("dot", "vectors", "function"),
)

BY_NAME: dict[str, Exercise] = {e.name: e for e in EXERCISES}
MODULES: tuple[str, ...] = tuple(dict.fromkeys(e.module for e in EXERCISES))


def exercises_in(module: str) -> tuple[Exercise, ...]:
    """The exercises of one module, in registry order."""
    return tuple(e for e in EXERCISES if e.module == module)
