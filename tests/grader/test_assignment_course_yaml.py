"""content/course.yaml `assignments:`: the default (one per lesson with exercises), a declared
list, and every mistake reported as file:line:column (coursegen/assignments.py)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coursegen.assignments import read_assignments
from coursegen.errors import ContentErrors

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def course(tmp_path) -> Path:
    for part in ("content", "exercises"):  # the lessons and the registry that names their exercises
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def declare(course: Path, text: str) -> int:
    """Append an `assignments:` block to course.yaml; returns the line number where it starts."""
    path = course / "content" / "course.yaml"
    before = path.read_text(encoding="utf-8")
    path.write_text(before + text, encoding="utf-8")
    return before.count("\n") + 1


def errors(course: Path) -> list[str]:
    with pytest.raises(ContentErrors) as raised:
        read_assignments(course)
    return [str(e) for e in raised.value.errors]


def test_without_assignments_every_lesson_with_exercises_is_one(course):
    found = {a.id: a.exercises for a in read_assignments(course)}
    # by hand, from the `exercises:` lists of content/lessons/*.yaml
    assert found["rope-alibi"] == ("apply_rope", "alibi_slopes", "alibi_bias")
    assert found["rope-practice"] == ("ntk_base",)
    assert found["subwords-objective"] == ("merge_pair", "causal_mask", "next_token_loss")
    assert len(found) == 8


def test_a_declared_assignment_combines_lessons_and_exercises_with_points_and_a_due_date(course):
    declare(
        course,
        "assignments:\n"
        "  - id: homework-5\n    title: {en: Homework 5, zh: 作业五}\n    lessons: [rope-alibi]\n"
        "    exercises: [ntk_base]\n    points: {ntk_base: 2.5}\n    due: 2026-12-08T23:59:00Z\n",
    )
    (only,) = read_assignments(course)
    assert (only.id, only.title, only.exercises) == (
        "homework-5",
        "Homework 5",
        ("apply_rope", "alibi_slopes", "alibi_bias", "ntk_base"),
    )
    assert dict(only.points) == {"ntk_base": 2.5} and only.due and only.due.startswith("2026-12-08T23:59")


def test_unknown_names_duplicates_and_overlaps_are_located(course):
    start = declare(
        course,
        "assignments:\n"
        "  - id: hw-1\n    title: {en: One, zh: 一}\n    lessons: [rope-alibi, rope-alibbi]\n"  # start+1 .. +3
        "    exercises: [apply_rope, not_an_exercise]\n"  # start+4
        "    points: {ntk_base: 3}\n"  # start+5
        "  - id: hw-1\n    title: {en: Two, zh: 二}\n    exercises: [alibi_bias]\n",  # start+6 .. +8
    )
    found = errors(course)
    where = "content/course.yaml"
    assert any(e.startswith(f"{where}:{start + 3}:") and "unknown lesson 'rope-alibbi'" in e for e in found)
    assert any(e.startswith(f"{where}:{start + 4}:") and "exercise 'apply_rope' is named twice" in e for e in found)
    assert any(e.startswith(f"{where}:{start + 4}:") and "unknown exercise 'not_an_exercise'" in e for e in found)
    assert any(e.startswith(f"{where}:{start + 5}:") and "points for 'ntk_base'" in e for e in found)
    assert any(e.startswith(f"{where}:{start + 6}:") and "duplicated assignment id 'hw-1'" in e for e in found)
    assert any(e.startswith(f"{where}:{start + 8}:") and "already in assignment 'hw-1'" in e for e in found)


def test_an_exercise_may_be_repeated_only_by_a_shared_assignment(course):
    declare(
        course,
        "assignments:\n"
        "  - id: hw-1\n    title: {en: One, zh: 一}\n    lessons: [rope-alibi]\n"
        "  - id: exam\n    title: {en: Exam, zh: 考试}\n    exercises: [apply_rope]\n    shared: true\n",
    )
    assert [a.id for a in read_assignments(course)] == ["hw-1", "exam"]


def test_a_negative_override_and_an_empty_assignment_are_refused(course):
    declare(
        course,
        "assignments:\n  - id: hw-1\n    title: {en: One, zh: 一}\n    exercises: [apply_rope]\n"
        "    points: {apply_rope: -1}\n",
    )
    assert any("points.apply_rope" in e or "greater than 0" in e for e in errors(course))


@pytest.mark.slow
def test_coursegen_check_reports_an_unknown_exercise_with_its_place(tmp_path):
    for folder in ("content", "exercises", "solutions", "grader/checks"):
        (tmp_path / folder).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    start = declare(tmp_path, "assignments:\n  - id: hw\n    title: {en: H, zh: 作}\n    exercises: [apply_ropee]\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert f"content/course.yaml:{start + 3}:" in done.stderr and "did you mean 'apply_rope'" in done.stderr


@pytest.mark.slow
def test_coursegen_check_reports_an_assignment_exercise_no_check_grades(tmp_path):
    for folder in ("content", "exercises", "solutions", "grader/checks"):
        (tmp_path / folder).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "grader" / "checks" / "test_rope.py").write_text(
        (ROOT / "grader" / "checks" / "test_rope.py")
        .read_text()
        .replace('exercise("ntk_base")', 'exercise("apply_rope")')
    )  # no check grades ntk_base any more
    lesson = tmp_path / "content" / "lessons" / "rope-practice.yaml"
    text = lesson.read_text()
    start_of, end_of = text.index("\nexercises:\n"), text.index("\nquiz:")
    lesson.write_text(text[:start_of] + text[end_of:])  # nor does any lesson name it
    start = declare(tmp_path, "assignments:\n  - id: hw\n    title: {en: H, zh: 作}\n    exercises: [ntk_base]\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "check", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert f"content/course.yaml:{start + 1}:" in done.stderr and "no check with points grades ntk_base" in done.stderr
