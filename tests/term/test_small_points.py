"""Issue 34, item 8's small points: `grade --lang zh` says what it graded against in Chinese, and
`--moodle-id email` with a roster of non-e-mail ids warns."""

from __future__ import annotations


from grader.reporting.lms_export import RosterEntry, moodle_id_warnings
from grader.reporting.reports import text
from grader.reporting.results import SubmissionResult

from .course import make_term_course


def test_graded_against_without_an_assignment_is_in_the_feedback_language(tmp_path):
    from grader.course import Course
    from grader.reading.submission import load_submission
    from grader.scaleout.batch import unassigned

    root = make_term_course(tmp_path / "course")
    course = Course.load(root)
    submission = load_submission(root / "solutions" / "quadrature.py", course)
    line = unassigned(submission, course.registry, "zh")
    assert "未指定作业" in line and "no assignment" not in line and "trapezoid" in line
    result = SubmissionResult("s", "quadrature.py", "0" * 64, 0.0, 4.0, lang="zh", graded_against=line)
    report = text(result)
    assert "评分依据" in report and "graded against" not in report
    assert "no assignment named" in unassigned(submission, course.registry, "en")


def test_moodle_email_with_canvas_ids_warns():
    canvas = {"s1": RosterEntry("s1", "12345"), "s2": RosterEntry("s2", "s2@example.edu")}
    (warning,) = moodle_id_warnings(canvas, "email")
    assert "1 of 2" in warning and "'12345'" in warning
    assert moodle_id_warnings({"s2": RosterEntry("s2", "s2@example.edu")}, "email") == []
    assert moodle_id_warnings(canvas, "idnumber") == []
