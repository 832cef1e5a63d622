"""Generated quiz questions, the engine side: what an answer function returns, the registry
the course's plugin modules fill (`@answer_function`, `@oracle`, see coursegen/plugin.py), and
the helpers an answer function uses (`reference`, `from_mistakes`), which answer for the course
whose plugin module calls them.

Only registered functions can be named from YAML: nothing from a YAML file is ever evaluated.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from coursegen.plugin_loading import Registrations, calling_course_root
from grader.errors import CoursegenError

Value = Any  # a float, an int, or a shape (list of ints)


class InvalidParams(CoursegenError, ValueError):
    """These parameters make no sense together (e.g. a head index above the head count);
    the variant engine draws again."""


@dataclass
class Wrong:
    value: Value
    feedback: dict[str, str] | None = None  # {"en", "zh"}; None -> the question's wrong_feedback
    from_mistake: bool = False  # catalogued mistakes that happen to give the answer are dropped


@dataclass
class Generated:
    answer: Value
    wrong: dict[str, Wrong] = field(default_factory=dict)  # distractor key -> value
    facts: dict[str, Any] = field(default_factory=dict)  # extra {{names}} for the question text


@dataclass(frozen=True)
class AnswerFunction:
    name: str
    func: Callable[..., Generated]
    kind: str  # "number" or "shape"
    params: tuple[str, ...]
    doc: str


ANSWER_FUNCTIONS: Registrations[AnswerFunction] = Registrations()  # name -> answer function, per course
ORACLES: Registrations[Callable[..., Value]] = Registrations()  # answer function name -> its independent oracle


def answer_function(name: str, kind: str) -> Callable:
    """Register `func` under `name`; its keyword parameters are the template's parameters."""

    def register(func: Callable[..., Generated]) -> Callable[..., Generated]:
        params = tuple(inspect.signature(func).parameters)
        doc = (inspect.getdoc(func) or "").split("\n")[0]
        registered = ANSWER_FUNCTIONS.of_module(func.__module__)
        if name in registered:
            raise ValueError(f"answer function '{name}' is defined twice")
        registered[name] = AnswerFunction(name, func, kind, params, doc)
        return func

    return register


def oracle(answer_name: str) -> Callable:
    """Register the decorated function as the oracle of the answer function `answer_name`."""

    def register(func: Callable[..., Value]) -> Callable[..., Value]:
        registered = ORACLES.of_module(func.__module__)
        if answer_name in registered:
            raise ValueError(f"answer function '{answer_name}' already has an oracle")
        registered[answer_name] = func
        return func

    return register


def answer_functions(root: str | Path) -> dict[str, AnswerFunction]:
    """The answer functions of the course at `root`, by name (its plugin modules loaded on first use)."""
    return ANSWER_FUNCTIONS.of(root)


def oracles(root: str | Path) -> dict[str, Callable[..., Value]]:
    """The oracles of the course at `root`, by the name of the answer function each one checks."""
    return ORACLES.of(root)


def reference(name: str) -> Callable:
    """The reference implementation of an exercise (solutions/<module>.py) of the course whose
    plugin module calls this."""
    from grader.course import Course

    return Course.load(calling_course_root("reference()")).reference(name)


def from_mistakes(target: str, compute: Callable[[Callable], Value]) -> dict[str, Wrong]:
    """Run `compute` with each catalogued mistake of `target` (of the course whose plugin module
    calls this) in place of the reference.

    A mistake that raises on these inputs gives no distractor (it would not produce a
    number a student could type)."""
    from grader.course import Course

    for_target = Course.load(calling_course_root("from_mistakes()")).for_target
    wrong: dict[str, Wrong] = {}
    for m in for_target(target):
        try:
            value = compute(m.obj)
        except Exception:  # noqa: BLE001 - a crashing mistake simply yields no distractor
            continue
        if isinstance(value, float) and not math.isfinite(value):
            continue
        wrong[m.id] = Wrong(value, dict(m.hint), from_mistake=True)
    return wrong
