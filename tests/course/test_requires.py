"""The first course declares the runtime it needs: torch, which the engine itself does not require."""

from __future__ import annotations

from pathlib import Path

from grader import course_requires

REPO = Path(__file__).resolve().parents[2]


def test_the_first_course_requires_torch():
    assert course_requires.course_requirements(REPO) == ["torch>=2.2"]
