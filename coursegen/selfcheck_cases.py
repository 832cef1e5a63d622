"""Self-checks, the engine side: what a course's public self-check of an exercise is made of, and
the registry its plugin modules fill with `selfchecks(SelfCheckSpec(...), ...)` (coursegen/plugin.py).

A `Case` is a function body returning a value (computed with the reference at build time, compared
in the student's notebook); a `Property` is a function body of `_expect*` calls (the notebook's
self-check tools cell, coursegen/selfcheck_code.py). Labels are bilingual {"en", "zh"}.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from coursegen.plugin_loading import Registrations


@dataclass(frozen=True)
class Case:
    label: dict[str, str]  # {"en": ..., "zh": ...}: what this input is, shown on failure
    code: str  # a function body returning the value to compare
    atol: float = 1e-5
    rtol: float = 1e-4


@dataclass(frozen=True)
class Property:
    label: dict[str, str]  # the property, stated for the student
    code: str  # a function body of _expect* calls


@dataclass(frozen=True)
class SelfCheckSpec:
    exercise: str
    cases: tuple[Case, ...]
    properties: tuple[Property, ...] = field(default_factory=tuple)


SPECS: Registrations[SelfCheckSpec] = Registrations()  # exercise name -> its self-check, per course


def selfchecks(*specs: SelfCheckSpec) -> None:
    """Register the self-checks of some exercises (one spec per exercise), for the course of the
    plugin module that calls this."""
    registered = SPECS.of_module(sys._getframe(1).f_globals.get("__name__", ""))
    for spec in specs:
        if spec.exercise in registered:
            raise ValueError(f"exercise '{spec.exercise}' has two self-check specs")
        registered[spec.exercise] = spec


def by_exercise(root: str | Path) -> dict[str, SelfCheckSpec]:
    """The self-check specs of the course at `root` by exercise name (its plugins loaded on first use)."""
    return SPECS.of(root)
