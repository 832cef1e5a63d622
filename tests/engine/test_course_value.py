"""A course is a value loaded by path (grader/course.py): two courses side by side in one process,
each under its own package, neither seeing the other's registry, references or mistakes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from grader.course import Course, CourseError
from grader.verifying.verify import verify
from tests.nonempty import nonempty

TESTS = Path(__file__).resolve().parents[1]
NUMERICS = TESTS / "courses" / "numerics"
STATISTICS = TESTS / "courses" / "statistics"


def copy(course: Path, dest: Path) -> Path:
    shutil.copytree(course, dest, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    return dest


def names(course: Course) -> set[str]:
    return {e.name for e in course.registry.exercises}


def test_two_courses_load_side_by_side_under_packages_of_their_own(tmp_path):
    numerics = Course.load(copy(NUMERICS, tmp_path / "numerics"))
    statistics = Course.load(copy(STATISTICS, tmp_path / "statistics"))
    assert numerics.package != statistics.package
    assert names(numerics) and names(statistics) and not names(numerics) & names(statistics)
    for course in (numerics, statistics):
        for exercise in nonempty(course.registry.exercises):
            reference = course.reference(exercise.name)
            # each reference is the file of its own course, imported under that course's package
            assert Path(sys.modules[reference.__module__].__file__).is_relative_to(course.root)
            assert reference.__module__.startswith(course.package + ".solutions.")
        assert {m.target for m in course.catalogue()} <= names(course)
        assert all(m.course == course.package for m in course.catalogue())
    assert not {m.id for m in numerics.catalogue()} & {m.id for m in statistics.catalogue()}
    assert "solutions" not in sys.modules or not Path(sys.modules["solutions"].__file__ or "").is_relative_to(tmp_path)
    assert Course.load(tmp_path / "numerics" / ".." / "numerics") is numerics  # one value per root


@pytest.mark.slow
def test_two_different_courses_verify_in_one_process(tmp_path):
    """Each course's proofs run against its own checks, references and mistakes, in turn and back
    again, while the other stays loaded: each is handed to verify, none is made "the" course."""
    numerics = Course.load(copy(NUMERICS, tmp_path / "numerics"))
    statistics = Course.load(copy(STATISTICS, tmp_path / "statistics"))
    for course in (numerics, statistics, numerics):
        rows = verify(course)
        assert rows and all(row.ok for row in rows), [(r.module, r.subject, r.detail) for r in rows if not r.ok]
        assert {row.module for row in rows} == set(course.registry.modules)
        mistakes = {row.subject.removeprefix("mistake ") for row in rows if row.subject.startswith("mistake ")}
        assert mistakes == {m.id for m in course.catalogue()} and mistakes


def test_a_content_only_course_has_an_empty_registry(tmp_path):
    (tmp_path / "content").mkdir()
    course = Course.load(tmp_path)
    assert course.registry.exercises == () and course.catalogue() == []


def test_a_registry_without_exercises_is_a_located_error(tmp_path):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "__init__.py").write_text("")
    (tmp_path / "exercises" / "registry.py").write_text("NAMES = ('dot',)\n")
    with pytest.raises(CourseError, match=r"exercises/registry\.py: no EXERCISES"):
        Course.load(tmp_path).registry


def test_forgetting_a_course_loads_its_edited_files_afresh(tmp_path):
    root = copy(STATISTICS, tmp_path / "statistics")
    first = Course.load(root)
    before = names(first)
    (root / "exercises" / "registry.py").write_text("EXERCISES = ()\n")
    assert names(Course.load(root)) == before  # loaded once: the same value until forgotten
    Course.forget(root)
    assert names(Course.load(root)) == set()


def test_a_course_carries_its_requirements_and_the_points_of_its_assignments(tmp_path):
    from grader.reporting.assignments import Assignment, AssignmentError

    numerics = Course.load(copy(NUMERICS, tmp_path / "numerics"))
    assert numerics.requirements == ("numpy>=1.26",)  # content/course.yaml `requires:`
    assert numerics.uses("numpy") and not numerics.uses("torch")
    assert numerics.preload_modules == ("numpy",)
    # the checks declare trapezoid 2 + 1 + 1 (a hidden one among them) and cumulative_trapezoid 2 + 1
    assert numerics.check_points() == {"trapezoid": 4.0, "cumulative_trapezoid": 3.0}
    both = numerics.definition(Assignment("week1", "Week 1", ("trapezoid", "cumulative_trapezoid"), {"trapezoid": 10}))
    assert both.exercises == (("trapezoid", 10.0), ("cumulative_trapezoid", 3.0)) and both.max_score == 13.0
    with pytest.raises(AssignmentError, match="assignment week2: no check with points grades simpson"):
        numerics.definition(Assignment("week2", "Week 2", ("simpson",)))
