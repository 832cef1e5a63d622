"""Notebooks run top to bottom in a real Jupyter kernel (ipykernel via nbclient)."""

from __future__ import annotations

import pytest

from coursegen.notebooks import has_notebook, render_notebooks

from .nbhelpers import cells_with_role, execute_one_after_another, printed, read_notebook, real_course

pytestmark = pytest.mark.slow


def selfcheck_reports(notebook) -> dict[str, str]:
    """What each exercise's self-check cell printed, by exercise name."""
    return {
        cell.metadata["coursegen"]["exercise"]: printed(cell)
        for cell in cells_with_role(notebook, "selfcheck")
        if cell.metadata["coursegen"]["exercise"]
    }


@pytest.fixture(scope="module")
def fixture_run(fixture_outputs):
    """The fixture lesson's student notebook, then its instructor notebook, run in one kernel."""
    return execute_one_after_another(
        read_notebook(fixture_outputs["notebooks/en/fixture-lesson.ipynb"]),
        read_notebook(fixture_outputs["notebooks/en/fixture-lesson-solution.ipynb"]),
    )


def test_fixture_instructor_notebook_runs_with_every_selfcheck_passing(fixture_run):
    reports = selfcheck_reports(fixture_run[1])
    assert sorted(reports) == ["TiedLM", "apply_rope", "count_parameters"]
    for name, report in reports.items():
        assert report.startswith(f"[PASS] {name}"), report


def test_fixture_student_notebook_runs_with_every_selfcheck_reporting_the_stub(fixture_run):
    reports = selfcheck_reports(fixture_run[0])
    assert sorted(reports) == ["TiedLM", "apply_rope", "count_parameters"]
    for name, report in reports.items():
        assert report.startswith(f"[TODO] {name} is not implemented yet"), report


@pytest.fixture(scope="module")
def course_notebooks(tmp_path_factory):
    loaded = real_course()
    outputs = render_notebooks(
        loaded, solutions=True, languages=("en",), cache_dir=tmp_path_factory.mktemp("course-cache")
    )
    return loaded, outputs, {}


def _course_run(course_notebooks, lesson_id):
    """A course lesson's student notebook, then its instructor notebook, in one kernel (once per lesson)."""
    _, outputs, runs = course_notebooks
    if lesson_id not in runs:
        runs[lesson_id] = execute_one_after_another(
            read_notebook(outputs[f"notebooks/en/{lesson_id}.ipynb"]),
            read_notebook(outputs[f"notebooks/en/{lesson_id}-solution.ipynb"]),
        )
    return runs[lesson_id]


def _lesson_ids():
    try:
        from coursegen.loader import load_course
        from .nbhelpers import PROJECT_ROOT

        return [lesson.id for lesson in load_course(PROJECT_ROOT).lessons if has_notebook(lesson)]
    except Exception:  # the course does not load: the tests then fail in course_notebooks, with its errors
        return ["(course not loadable)"]


@pytest.mark.parametrize("lesson_id", _lesson_ids())
def test_course_instructor_notebook_runs_with_every_selfcheck_passing(course_notebooks, lesson_id):
    reports = selfcheck_reports(_course_run(course_notebooks, lesson_id)[1])
    assert reports
    for name, report in reports.items():
        assert report.startswith(f"[PASS] {name}"), report


@pytest.mark.parametrize("lesson_id", _lesson_ids())
def test_course_student_notebook_runs_with_every_selfcheck_reporting_the_stub(course_notebooks, lesson_id):
    reports = selfcheck_reports(_course_run(course_notebooks, lesson_id)[0])
    assert reports
    for name, report in reports.items():
        assert report.startswith(f"[TODO] {name} is not implemented yet"), report
