"""The exercise registry: the one piece of data that the build (coursegen) and the
grader both read. It names every graded function or class, the module it belongs to,
and whether it is a function or a class. It has no dependencies, so it can
ship in a student starter repository.

Points live with the checks (grader/checks), task statements with the lessons
(content/lessons/*.yaml); this file only says what exists and where.
"""
from __future__ import annotations

from grader.contract import Exercise


EXERCISES: tuple[Exercise, ...] = (
    Exercise("dot", "vectors", "function"),
)
