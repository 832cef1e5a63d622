"""Fixtures for the notebook tests: the tiny fixture course and its rendered notebooks."""

from __future__ import annotations

import pytest

from coursegen.loader import load_course
from coursegen.notebooks import render_notebooks

from .nbhelpers import FIXTURE_COURSE


@pytest.fixture(scope="session")
def fixture_course():
    return load_course(FIXTURE_COURSE)


@pytest.fixture(scope="session")
def fixture_outputs(fixture_course, tmp_path_factory):
    """Every notebook of the fixture course, students and instructors: {relative path: bytes}."""
    return render_notebooks(fixture_course, solutions=True, cache_dir=tmp_path_factory.mktemp("cache"))
