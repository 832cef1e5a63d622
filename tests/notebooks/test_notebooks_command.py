"""`coursegen notebooks`: the instructor's own copy of the notebooks, outside the public site."""

from __future__ import annotations

from tests.cli import Ran, run_cli

from .nbhelpers import FIXTURE_COURSE


def run(*args: str) -> Ran:
    return run_cli("notebooks", "--root", FIXTURE_COURSE, *args)


def test_solutions_flag_writes_student_and_instructor_notebooks(tmp_path):
    result = run("-o", str(tmp_path), "--solutions", "--lang", "en")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "en").iterdir()) == [
        "fixture-lesson-solution.ipynb",
        "fixture-lesson.ipynb",
    ]
    assert not (tmp_path / "zh").exists()


def test_without_solutions_flag_no_solution_is_written(tmp_path):
    assert run("-o", str(tmp_path)).returncode == 0
    assert not list(tmp_path.rglob("*-solution.ipynb"))
    assert (tmp_path / "zh" / "fixture-lesson.ipynb").is_file()


def test_unknown_lesson_is_an_error_and_nothing_is_written(tmp_path):
    result = run("-o", str(tmp_path / "out"), "--lesson", "no-such-lesson")
    assert result.returncode == 1
    assert "no lesson named no-such-lesson" in result.stderr
    assert not (tmp_path / "out").exists()
