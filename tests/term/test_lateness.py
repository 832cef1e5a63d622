"""Issue 34, item 3: the late policy (grader/reporting/lateness.py), checked against a table worked
out by hand, and `due:`/`late:` in course.yaml read into the assignment with located errors."""

from __future__ import annotations

import datetime
import subprocess
import sys

import pytest

from grader.reporting.assignments import Assignment
from grader.reporting.lateness import LatePolicy, apply_late_policy, parse_due

from .course import REPO, make_term_course

UTC = datetime.timezone.utc
DUE = "2026-03-02T23:59:00+08:00"  # 15:59 UTC
POLICY = LatePolicy(grace_minutes=15, per_day=10.0, last_day=3, extensions={"ext": 2})
HW = Assignment("hw1", "Homework 1", ("trapezoid",), due=DUE, late=POLICY)


def at(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text)


@pytest.mark.parametrize(
    ("submitted", "student", "penalty"),
    [
        ("2026-03-02T23:00:00+08:00", "s", 0.0),  # early
        ("2026-03-02T16:10:00+00:00", "s", 0.0),  # 11 minutes late, within the grace
        ("2026-03-03T00:15:00+08:00", "s", 2.0),  # 16 minutes late: beyond the 15-minute grace, day 1
        ("2026-03-03T00:30:00+08:00", "s", 2.0),  # 31 minutes late: day 1, 10% of 20
        ("2026-03-04T00:00:00+08:00", "s", 4.0),  # 1 day 1 minute: day 2
        ("2026-03-05T23:59:00+08:00", "s", 6.0),  # exactly 3 days: day 3
        ("2026-03-06T00:00:00+08:00", "s", 20.0),  # 3 days 1 minute: after the last day, 0
        ("2026-03-06T00:00:00+08:00", "ext", 4.0),  # due 2 days later (03-04 23:59): 1 day 1 minute, day 2
    ],
)
def test_the_policy_against_a_hand_worked_table(submitted, student, penalty):
    got = apply_late_policy(HW, at(submitted), student, 20.0)
    assert (got.raw, got.penalty, got.final) == (20.0, penalty, 20.0 - penalty)


def test_no_time_no_policy_and_the_canvas_late_mark():
    assert apply_late_policy(HW, None, "s", 20.0).penalty == 0.0
    assert apply_late_policy(HW, None, "s", 20.0, late_marked=True).penalty == 2.0  # one day
    plain = Assignment("hw2", "Homework 2", ("trapezoid",), due=DUE)
    assert apply_late_policy(plain, at("2030-01-01T00:00:00+00:00"), "s", 5.0).final == 5.0


def test_a_date_alone_is_the_end_of_that_day_utc():
    assert parse_due("2026-03-02") == datetime.datetime(2026, 3, 2, 23, 59, 59, tzinfo=UTC)
    assert parse_due("2026-03-02T10:00") == datetime.datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def test_late_and_due_are_read_from_course_yaml(tmp_path):
    from coursegen.assignments import read_assignments

    root = make_term_course(tmp_path / "course")
    (root / "extensions.csv").write_text("student,days\n1001,2\n")
    text = (root / "content" / "course.yaml").read_text()
    text = text.replace(
        "    lessons: [quadrature, running]\n",
        f"    lessons: [quadrature, running]\n    due: {DUE}\n"
        "    late: {grace_minutes: 15, per_day: 10, last_day: 3, extensions: extensions.csv}\n",
    )
    (root / "content" / "course.yaml").write_text(text)
    (hw1,) = read_assignments(root)
    assert hw1.late == LatePolicy(15, 10, 3, {"1001": 2.0})
    assert parse_due(hw1.due) == at(DUE)


def test_a_late_policy_without_a_due_date_is_a_located_error(tmp_path):
    root = make_term_course(tmp_path / "course", "")
    text = (root / "content" / "course.yaml").read_text()
    (root / "content" / "course.yaml").write_text(
        text.replace(
            "    lessons: [quadrature, running]\n", "    lessons: [quadrature, running]\n    late: {per_day: 10}\n"
        )
    )
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "check", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "content/course.yaml:" in done.stderr + done.stdout and "needs a `due:`" in done.stderr + done.stdout


def test_the_exercises_page_and_the_guide_show_each_due_date_with_its_offset(tmp_path):
    import jinja2

    from coursegen.loader import load_course
    from coursegen.pages import make_env
    from coursegen.site import write_course_pages
    from coursegen.student_guide import due_dates, guide_markdown

    root = make_term_course(tmp_path / "course")
    text = (root / "content" / "course.yaml").read_text()
    (root / "content" / "course.yaml").write_text(
        text.replace("    lessons: [quadrature, running]\n", f"    lessons: [quadrature, running]\n    due: {DUE}\n")
    )
    loaded = load_course(root)
    assert due_dates(loaded, "en") == [("Homework 1", "2026-03-02 23:59 UTC+08:00")]
    assert due_dates(loaded, "zh") == [("作业 1", "2026-03-02 23:59 UTC+08:00")]
    guide = guide_markdown(loaded)
    assert (
        "- Homework 1: due 2026-03-02 23:59 UTC+08:00" in guide and "- 作业 1：截止 2026-03-02 23:59 UTC+08:00" in guide
    )
    env: jinja2.Environment = make_env(root, cache_dir=tmp_path / "cache")
    write_course_pages(loaded, tmp_path / "site", env)
    for lang, word in (("en", "Due dates"), ("zh", "截止日期")):
        page = (tmp_path / "site" / lang / "exercises.html").read_text(encoding="utf-8")
        assert word in page and "2026-03-02 23:59 UTC+08:00" in page
