"""The exercise registry of the descriptive-statistics course: every graded function, the module it
belongs to and its kind. The build and the grader both read it; it has no dependencies."""
from __future__ import annotations

from grader.contract import Exercise


EXERCISES: tuple[Exercise, ...] = (
    Exercise("mean", "center", "function"),
    Exercise("median", "center", "function"),
    Exercise("variance", "spread", "function"),
)
