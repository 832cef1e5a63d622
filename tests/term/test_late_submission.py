"""Issue 34, item 3 (must show): a late Gradescope submission carries its penalty into the CSV,
Canvas and Moodle grade files, the class report and the student's feedback file.

The download is a zip written here in Gradescope's documented "Export Submissions" layout
(`submission_metadata.yml` with `:submitters:` and `:created_at:` beside one folder per
submission), graded by the real `coursegen grade --from gradescope --assignment hw1`. The numbers
below are worked out by hand from the policy written into course.yaml, not by the grader's code:

    due      2026-03-02T23:59:00+08:00                        (= 2026-03-02 15:59 UTC)
    late     grace 15 min, 10 % of the raw score per day or part of a day, 0 after day 3
    1001     created_at 2026-03-02 07:10:05 -0800 (= 15:10:05 UTC): on time
    1002     created_at 2026-03-03 10:00:00 -0800 (= 2026-03-03 18:00 UTC): late by
             1 day 2 h 1 min = 93660 s -> day 2 -> 20 % of 7 = 1.4 off -> 5.6
"""

from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest

from tests.cli import run_cli

from .course import ASSIGNMENT, grade_locally, make_term_course, solution_notebooks

pytestmark = pytest.mark.slow

DUE_YAML = "    due: 2026-03-02T23:59:00+08:00\n    late: {grace_minutes: 15, per_day: 10, last_day: 3}\n"
RAW, LATE_BY, PENALTY, FINAL = 7.0, 93660.0, 1.4, 5.6  # by hand, see the module's docstring
METADATA = """\
submission_301:
  :submitters:
  - :name: Jane Doe
    :sid: '1001'
    :email: jane@example.edu
  :created_at: 2026-03-02 07:10:05.123456789 -0800
  :score: 0.0
  :status: processed
submission_302:
  :submitters:
  - :name: John Roe
    :sid: '1002'
    :email: john@example.edu
  :created_at: 2026-03-03 10:00:00.000000000 -0800
  :score: 0.0
  :status: processed
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("late")
    root = make_term_course(folder / "course")
    course_yaml = root / "content" / "course.yaml"
    text = course_yaml.read_text(encoding="utf-8")
    course_yaml.write_text(
        text.replace("    lessons: [quadrature, running]\n", "    lessons: [quadrature, running]\n" + DUE_YAML)
    )
    notebooks = solution_notebooks(root)  # both students hand in full marks: 7 of 7 before lateness
    download = folder / "gradescope.zip"
    with zipfile.ZipFile(download, "w") as archive:
        archive.writestr("assignment_42_export/submission_metadata.yml", METADATA)
        for number in (301, 302):
            for lesson, data in notebooks.items():
                archive.writestr(f"assignment_42_export/submission_{number}/{lesson}.ipynb", data)
    (folder / "out").mkdir()
    results = grade_locally(root, download, folder / "out", "--from", "gradescope")
    roster = folder / "lms.csv"
    roster.write_text("student,lms_id,name\n1001,501,Jane Doe\n1002,502,John Roe\n", encoding="utf-8")
    return root, folder, results, roster


def test_the_grader_keeps_raw_lateness_and_penalty_apart(graded):
    _, folder, results, _ = graded
    on_time, late = results["1001"], results["1002"]
    assert (on_time["score"], on_time["max_score"]) == (RAW, RAW)
    assert on_time["lateness"]["penalty"] == 0.0 and on_time["lateness"]["final"] == RAW
    assert on_time["lateness"]["source"] == "gradescope"
    assert late["score"] == RAW  # the raw score the checks gave
    assert late["lateness"]["late_by_seconds"] == LATE_BY
    assert (late["lateness"]["penalty"], late["lateness"]["final"]) == (PENALTY, FINAL)
    import sqlite3

    db = sqlite3.connect(folder / "out" / "gb.sqlite")
    rows = db.execute("SELECT student, late_by, raw, penalty, final FROM lateness ORDER BY student").fetchall()
    db.close()
    assert rows == [("1001", None, RAW, 0.0, RAW), ("1002", LATE_BY, RAW, PENALTY, FINAL)]


def _export(root, folder, *args):
    ran = run_cli("gradebook", "export", "--gradebook", folder / "out" / "gb.sqlite", "--root", root, *args, expect=0)
    return list(csv.DictReader(io.StringIO(ran.stdout)))


def test_the_csv_export_shows_raw_late_by_penalty_and_final(graded):
    root, folder, _, _ = graded
    rows = {r["student"]: r for r in _export(root, folder, "--format", "csv", "--assignment", ASSIGNMENT)}
    late = rows["1002"]
    assert (late["raw_score"], late["late_by_seconds"], late["penalty"], late["score"]) == ("7", "93660", "1.4", "5.6")
    assert late["percent"] == "80"
    on_time = rows["1001"]
    assert (on_time["raw_score"], on_time["late_by_seconds"], on_time["penalty"], on_time["score"]) == (
        "7",
        "",
        "0",
        "7",
    )


def test_canvas_imports_the_final_score_and_moodle_shows_all_three(graded):
    root, folder, _, roster = graded
    canvas = _export(root, folder, "--format", "canvas", "--roster", roster, "--assignment", ASSIGNMENT)
    column = "Homework 1"
    assert {r["ID"]: r[column] for r in canvas} == {"501": "7", "502": "5.6"}
    moodle = _export(root, folder, "--format", "moodle", "--roster", roster, "--assignment", ASSIGNMENT)
    by_id = {r["ID number"]: r for r in moodle}
    assert by_id["502"][column] == "5.6"
    assert (by_id["502"]["Raw score"], by_id["502"]["Late by (s)"], by_id["502"]["Late penalty"]) == (
        "7",
        "93660",
        "1.4",
    )
    assert (by_id["501"][column], by_id["501"]["Late penalty"]) == ("7", "0")


def test_the_report_shows_the_penalty(graded):
    root, folder, _, _ = graded
    out = folder / "report"
    run_cli("report", "--gradebook", folder / "out" / "gb.sqlite", "-o", out, "--root", root, expect=0)
    for page, words in (
        (out / "index.html", ("Late penalty", "Final")),
        (out / "zh" / "index.html", ("迟交扣分", "最终")),
    ):
        text = page.read_text(encoding="utf-8")
        row = text.split("1002", 1)[1].split("</tr>", 1)[0]
        assert all(word in text for word in words), page
        assert re.search(r">\s*7 / 7\s*<", row) and ">1.4<" in row and ">5.6 / 7<" in row, row
        assert "1 d 2 h 1 min" in row or "1 天 2 小时 1 分钟" in row, row


def test_the_feedback_file_shows_raw_late_by_penalty_and_final(graded):
    root, folder, _, _ = graded
    out = folder / "feedback"
    run_cli("feedback", "--gradebook", folder / "out" / "gb.sqlite", "--assignment", ASSIGNMENT, "-o", out, "--root", root, expect=0)  # fmt: skip
    late = (out / "1002.html").read_text(encoding="utf-8")
    for text in ("raw score", "7/7", "late by", "1 d 2 h 1 min", "late penalty", "1.4", "final score", "5.6/7"):
        assert text in late, text
    on_time = (out / "1001.html").read_text(encoding="utf-8")
    assert "on time" in on_time and "5.6" not in on_time and "1002" not in on_time
    assert "1.4" not in on_time


def _late_course(tmp_path):
    root = make_term_course(tmp_path / "course")
    course_yaml = root / "content" / "course.yaml"
    text = course_yaml.read_text(encoding="utf-8")
    course_yaml.write_text(
        text.replace("    lessons: [quadrature, running]\n", "    lessons: [quadrature, running]\n" + DUE_YAML)
    )
    return root


def test_the_roster_submitted_at_column_is_the_time(tmp_path):
    """Per-student folders and the instructor's roster `student,submission,submitted_at`: ana on
    time; ben 3 days 1 minute late (after the last day): 0 of 7, the penalty is all 7."""
    root = _late_course(tmp_path)
    notebooks = solution_notebooks(root)
    for student in ("ana", "ben"):
        (tmp_path / "batch" / student).mkdir(parents=True)
        for lesson, data in notebooks.items():
            (tmp_path / "batch" / student / f"{lesson}.ipynb").write_bytes(data)
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "student,submission,submitted_at\nana,ana,2026-03-02T23:00:00+08:00\nben,ben,2026-03-05T16:00:00Z\n",
        encoding="utf-8",
    )
    (tmp_path / "out").mkdir()
    results = grade_locally(root, tmp_path / "batch", tmp_path / "out", "--roster", str(roster))
    ana, ben = results["ana"]["lateness"], results["ben"]["lateness"]
    assert (ana["source"], ana["late_by_seconds"], ana["penalty"], ana["final"]) == ("roster", None, 0.0, 7.0)
    assert (ben["source"], ben["late_by_seconds"], ben["penalty"], ben["final"]) == ("roster", 259260.0, 7.0, 0.0)


def test_canvas_late_mark_without_a_time_costs_one_day(tmp_path):
    """Canvas's bulk download gives no time, only `_LATE_` in the file name: one day's 10 %."""
    root = _late_course(tmp_path)
    quadrature = (root / "solutions" / "quadrature.py").read_bytes()
    running = (root / "solutions" / "running.py").read_bytes()
    download = tmp_path / "canvas.zip"
    with zipfile.ZipFile(download, "w") as archive:
        archive.writestr("doejane_1001_701_quadrature.py", quadrature)
        archive.writestr("doejane_1001_702_running.py", running)
        archive.writestr("roejohn_LATE_1002_703_quadrature.py", quadrature)
        archive.writestr("roejohn_LATE_1002_704_running.py", running)
    (tmp_path / "out").mkdir()
    results = grade_locally(root, download, tmp_path / "out", "--from", "canvas")
    on_time, late = results["1001"]["lateness"], results["1002"]["lateness"]
    assert (on_time["penalty"], on_time["final"]) == (0.0, 7.0)
    assert (late["late_marked"], late["late_by_seconds"], late["penalty"], late["final"]) == (True, None, 0.7, 6.3)
