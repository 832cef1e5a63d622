"""Fixtures for the export tests (helpers in helpers.py): one fixture course, exported once."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import LESSON_ID, make_course


@pytest.fixture(scope="session")
def course_root(tmp_path_factory) -> Path:
    return make_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="session")
def classroom_tree(course_root, tmp_path_factory) -> Path:
    """The starter repository of the fixture lesson (exported once per session)."""
    from coursegen.exports.classroom import export_classroom

    out = tmp_path_factory.mktemp("classroom") / "starter"
    export_classroom(course_root, LESSON_ID, out)
    return out


@pytest.fixture(scope="session")
def gradescope_zip(course_root, tmp_path_factory) -> Path:
    from coursegen.exports.gradescope import export_gradescope

    out = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    export_gradescope(course_root, LESSON_ID, out)
    return out


@pytest.fixture(scope="session")
def lesson_notebooks(course_root) -> dict[str, bytes]:
    """{"student": bytes, "solution": bytes} of the fixture lesson, English."""
    from coursegen.loader import load_course
    from coursegen.notebooks import notebook_relpath, render_notebooks

    outputs = render_notebooks(load_course(course_root), students=True, solutions=True, lessons=[LESSON_ID])
    return {
        "student": outputs[notebook_relpath(LESSON_ID, "en")],
        "solution": outputs[notebook_relpath(LESSON_ID, "en", solution=True)],
    }
