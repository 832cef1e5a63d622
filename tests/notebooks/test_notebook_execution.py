"""Notebooks run top to bottom in a real Jupyter kernel (ipykernel via nbclient)."""
from __future__ import annotations

import pytest

from coursegen.notebooks import has_notebook, render_notebooks

from .nbhelpers import cells_with_role, execute, printed, read_notebook, real_course_or_skip

pytestmark = pytest.mark.slow


def selfcheck_reports(notebook) -> dict[str, str]:
    """What each exercise's self-check cell printed, by exercise name."""
    return {cell.metadata["coursegen"]["exercise"]: printed(cell)
            for cell in cells_with_role(notebook, "selfcheck") if cell.metadata["coursegen"]["exercise"]}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fixture_instructor_notebook_runs_with_every_selfcheck_passing(fixture_outputs, lang):
    notebook = execute(read_notebook(fixture_outputs[f"notebooks/{lang}/fixture-lesson-solution.ipynb"]))
    reports = selfcheck_reports(notebook)
    assert sorted(reports) == ["TiedLM", "apply_rope", "count_parameters"]
    for name, report in reports.items():
        assert report.startswith(f"[PASS] {name}"), report


def test_fixture_student_notebook_runs_with_every_selfcheck_reporting_the_stub(fixture_outputs):
    notebook = execute(read_notebook(fixture_outputs["notebooks/en/fixture-lesson.ipynb"]))
    for name, report in selfcheck_reports(notebook).items():
        assert report.startswith(f"[TODO] {name} is not implemented yet"), report


@pytest.fixture(scope="module")
def course_notebooks(tmp_path_factory):
    loaded = real_course_or_skip()
    outputs = render_notebooks(loaded, solutions=True, languages=("en",),
                               cache_dir=tmp_path_factory.mktemp("course-cache"))
    return loaded, outputs


def _lesson_ids():
    try:
        from coursegen.loader import load_course
        from .nbhelpers import PROJECT_ROOT

        return [lesson.id for lesson in load_course(PROJECT_ROOT).lessons if has_notebook(lesson)]
    except Exception:  # the course does not load yet: the fixture below skips with the reason
        return ["(course not loadable)"]


@pytest.mark.parametrize("lesson_id", _lesson_ids())
def test_course_instructor_notebook_runs_with_every_selfcheck_passing(course_notebooks, lesson_id):
    _, outputs = course_notebooks
    notebook = execute(read_notebook(outputs[f"notebooks/en/{lesson_id}-solution.ipynb"]))
    reports = selfcheck_reports(notebook)
    assert reports
    for name, report in reports.items():
        assert report.startswith(f"[PASS] {name}"), report


@pytest.mark.parametrize("lesson_id", _lesson_ids())
def test_course_student_notebook_runs_with_every_selfcheck_reporting_the_stub(course_notebooks, lesson_id):
    _, outputs = course_notebooks
    notebook = execute(read_notebook(outputs[f"notebooks/en/{lesson_id}.ipynb"]))
    reports = selfcheck_reports(notebook)
    assert reports
    for name, report in reports.items():
        assert report.startswith(f"[TODO] {name} is not implemented yet"), report
