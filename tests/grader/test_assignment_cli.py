"""The headline of issue 22 with the real command line and the real sandbox: a batch graded
against the assignment the instructor set, never against what each submission claims.

alice hands in all of rope-alibi (rope.py with apply_rope only, alibi.py), bob only rope.py,
mallory a rope-alibi notebook cut down to one exercise (metadata edited, cells deleted).
"""

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assignment_batches import ROOT, declared_points, rope_alibi_max, solution_notebook, write_headline_batch

pytestmark = pytest.mark.slow


def coursegen(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *map(str, args), "--root", str(ROOT)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("assignment")
    notebook = solution_notebook(work / "notebooks", "rope-alibi")
    batch = write_headline_batch(work / "batch", notebook)
    done = coursegen(
        "grade", batch, "--assignment", "rope-alibi", "--gradebook", work / "GB.sqlite", "--format", "json", cwd=work
    )
    assert done.returncode == 0, done.stderr
    return work, {r["student"]: r for r in json.loads(done.stdout)}


def test_every_student_is_out_of_the_assignment_maximum_and_only_alice_has_it_all(graded):
    _, results = graded
    maximum = rope_alibi_max()  # 19 today: apply_rope 10 + alibi_slopes 4 + alibi_bias 5 (the checks' declared points)
    assert sorted(results) == ["alice", "bob", "mallory"]
    assert {r["max_score"] for r in results.values()} == {maximum}
    assert results["alice"]["score"] == maximum
    assert results["bob"]["score"] == declared_points("apply_rope") < maximum
    assert results["mallory"]["score"] == declared_points("alibi_slopes") < maximum
    for result in results.values():
        assert result["assignment"] == "rope-alibi"
        assert {t["exercise"] for t in result["tests"]} == {"apply_rope", "alibi_slopes", "alibi_bias"}
        assert "ntk_base" not in result["graded_against"]


def test_what_a_student_left_out_is_charged_with_a_one_line_reason(graded):
    _, results = graded
    missing = [t for t in results["bob"]["tests"] if t["exercise"] == "alibi_bias" and not t["hidden"]]
    assert missing and all(t["status"] == "failed" and t["score"] == 0 for t in missing)
    assert all(t["output"] == "alibi_bias is not defined in your submission." for t in missing)
    cut = [t for t in results["mallory"]["tests"] if t["exercise"] == "apply_rope"]
    assert sum(t["max_score"] for t in cut) == declared_points("apply_rope") and not any(t["score"] for t in cut)


def test_the_csv_export_has_one_max_score_and_alice_at_100_percent(graded):
    work, _ = graded
    done = coursegen(
        "gradebook", "export", "--format", "csv", "--assignment", "rope-alibi", "--gradebook", "GB.sqlite", "-o",
        "g.csv", cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO((work / "g.csv").read_text()))}
    assert {r["max_score"] for r in rows.values()} == {f"{rope_alibi_max():g}"}
    assert rows["alice"]["percent"] == "100"
    assert float(rows["bob"]["percent"]) < 100 and float(rows["mallory"]["percent"]) < 100
    assert "rope-alibi" in done.stderr and "out of 19" in done.stderr  # which definition it shows


def test_a_changed_definition_is_refused_until_the_re_grade_is_explicit(graded, tmp_path):
    """The course changes rope-alibi's points (a copy of the course with an `assignments:` list):
    grading into the same gradebook is refused; with --new-definition it re-grades."""
    work, _ = graded
    course = tmp_path / "course"
    for folder in ("content", "exercises", "solutions", "grader/checks"):
        (course / folder).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns("__pycache__"))
    yaml = course / "content" / "course.yaml"
    yaml.write_text(
        yaml.read_text()
        + "assignments:\n  - id: rope-alibi\n    title: {en: Homework 5, zh: 作业五}\n"
        + "    lessons: [rope-alibi]\n    points: {apply_rope: 20}\n"
    )
    book = tmp_path / "GB.sqlite"
    shutil.copyfile(work / "GB.sqlite", book)

    def grade(*extra):
        return subprocess.run(
            [sys.executable, str(ROOT / "cli.py"), "grade", str(work / "batch"), "--assignment", "rope-alibi"]
            + ["--gradebook", str(book), "--format", "json", "--root", str(course), *extra],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )

    refused = grade()
    assert refused.returncode == 2 and "--new-definition" in refused.stderr and "out of 19" in refused.stderr
    regraded = grade("--new-definition")
    assert regraded.returncode == 0, regraded.stderr
    results = {r["student"]: r for r in json.loads(regraded.stdout)}
    new_max = 20 + declared_points("alibi_slopes") + declared_points("alibi_bias")  # the override, by hand
    assert {r["max_score"] for r in results.values()} == {new_max} and results["alice"]["score"] == new_max
    assert results["bob"]["score"] == 20


def test_lms_exports_name_the_column_by_the_assignment_title_unless_told(graded):
    work, _ = graded
    (work / "lms.csv").write_text("student,lms_id\nalice,1\nbob,2\nmallory,3\nzoe,4\n")
    common = ("--roster", "lms.csv", "--assignment", "rope-alibi", "--gradebook", "GB.sqlite", "--out-of", "100")
    canvas = coursegen("gradebook", "export", "--format", "canvas", *common, cwd=work)
    assert canvas.returncode == 0, canvas.stderr
    table = list(csv.reader(io.StringIO(canvas.stdout)))
    title = "RoPE and ALiBi"  # content/lessons/rope-alibi.yaml's title.en: the default assignment's title
    assert table[0][-1] == title
    assert [row[-1] for row in table[1:]] == [
        "100",
        f"{round(100 * declared_points('apply_rope') / rope_alibi_max(), 4):g}",
        f"{round(100 * declared_points('alibi_slopes') / rope_alibi_max(), 4):g}",
        "",  # zoe handed in nothing: no change
    ]
    moodle = coursegen("gradebook", "export", "--format", "moodle", *common, "--title", "HW 5", cwd=work)
    assert moodle.returncode == 0 and next(csv.reader(io.StringIO(moodle.stdout))) == ["ID number", "HW 5"]
    unknown = coursegen("gradebook", "export", "--format", "csv", "--assignment", "Homework 1", "--gradebook",
                        "GB.sqlite", cwd=work)  # fmt: skip
    assert unknown.returncode == 2 and "rope-alibi" in unknown.stderr


def test_the_class_report_for_an_assignment_says_which_definition_it_shows(graded):
    work, _ = graded
    done = coursegen("report", "--gradebook", "GB.sqlite", "--assignment", "rope-alibi", "-o", "report", cwd=work)
    assert done.returncode == 0, done.stderr
    page = (work / "report" / "index.html").read_text(encoding="utf-8")
    assert "Graded against: assignment rope-alibi" in page and f"out of {rope_alibi_max():g}" in page
