"""Fixtures for the quiz tests: a copy of a one-lesson course whose quiz covers every question type."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "course"


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A writable copy of tests/quiz/fixtures/course."""
    target = tmp_path / "course"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture
def quiz_file(course: Path) -> Path:
    return course / "content" / "quizzes" / "mini.yaml"


@pytest.fixture
def loaded(course: Path):
    from coursegen.quiz.load import course_quizzes

    (quiz,) = course_quizzes(course)
    return quiz


def _replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def replace_in():
    """replace_in(path, old, new): edit a copied fixture file (the old text must be there)."""
    return _replace_in
