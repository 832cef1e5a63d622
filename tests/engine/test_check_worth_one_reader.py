"""What a check is worth has one reader (grader.reporting.assignments.read_check_marks): the site's
exercises page, `coursegen check` and grading count module `pytestmark`, class marks and each case of
a literal `parametrize` alike, and `coursegen check` refuses points it cannot count without running.

The expected worths are counted by hand from the check file written here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen.check import check_course
from coursegen.errors import ContentErrors
from coursegen.site import exercise_points
from grader.course import Course
from grader.reading.submission import load_submission
from grader.running.grade import grade_submissions, new_seed, result_from

NUMERICS = Path(__file__).resolve().parents[1] / "courses" / "numerics"

# module mark: the exercise; class mark: 3 points a case; parametrize: 3 cases -> 9; a method at 1
# point -> 1; a hidden function at the module's exercise, default 1 point -> 1. Total 11.
MARKED_CHECKS = """
import pytest

from grader.checking import expect_call

pytestmark = [pytest.mark.exercise("cumulative_trapezoid")]


@pytest.mark.points(3)
class TestRunningIntegral:
    @pytest.mark.parametrize("size", [2, 5, 9])
    def test_of_random_samples(self, candidate, reference, np_rng, size):
        expect_call(candidate, reference, "cumulative_trapezoid", np_rng.normal(size=size), 0.25)

    @pytest.mark.points(1)
    def test_with_a_wide_step(self, candidate, reference, np_rng):
        expect_call(candidate, reference, "cumulative_trapezoid", np_rng.normal(size=4), 3.0)


@pytest.mark.hidden
def test_of_two_samples(candidate, reference, np_rng):
    expect_call(candidate, reference, "cumulative_trapezoid", np_rng.normal(size=2), 1.5)
"""


@pytest.fixture
def course(tmp_path: Path) -> Path:
    root = tmp_path / "numerics"
    shutil.copytree(NUMERICS, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    (root / "grader" / "checks" / "test_running.py").write_text(MARKED_CHECKS, encoding="utf-8")
    return root


def test_the_exercises_page_and_check_count_module_class_and_parametrize_marks(course):
    assert exercise_points(course) == {"trapezoid": 4, "cumulative_trapezoid": 11}
    check_course(course)  # the checks marked through pytestmark grade a known exercise: no error


def test_grading_counts_what_the_page_shows(course, tmp_path):
    loaded = Course.load(course)
    reference = tmp_path / "submission" / "running.py"
    reference.parent.mkdir()
    reference.write_text((course / "solutions" / "running.py").read_text(encoding="utf-8"), encoding="utf-8")
    submission = load_submission(reference, loaded)
    outcomes: dict[str, list] = {}
    grade_submissions([("s", submission)], outcomes.__setitem__, course=loaded, seed=new_seed())
    result = result_from(submission, outcomes["s"], student="s", name="s", lang="en")
    running = [t for t in result.tests if t.exercise == "cumulative_trapezoid"]
    assert len(running) == 5, [t.name for t in result.tests]  # 3 cases + 1 method + 1 hidden
    assert sum(t.max_score for t in running) == 11
    assert sum(t.score for t in running) == 11, [(t.name, t.status, t.output) for t in running]


def test_check_refuses_points_it_cannot_count_without_running(course):
    checks = course / "grader" / "checks" / "test_running.py"
    checks.write_text(MARKED_CHECKS.replace("[2, 5, 9]", "SIZES"), encoding="utf-8")
    with pytest.raises(ContentErrors) as caught:
        check_course(course)
    message = str(caught.value)
    assert "grader/checks/test_running.py:" in message and "parametrize" in message, message
