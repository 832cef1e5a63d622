"""The exercise registry of the numerical-methods course: every graded function, the module it
belongs to and its kind. The build and the grader both read it; it has no dependencies."""
from __future__ import annotations

from grader.contract import Exercise


EXERCISES: tuple[Exercise, ...] = (
    Exercise("trapezoid", "quadrature", "function"),
    Exercise("cumulative_trapezoid", "running", "function"),
)
