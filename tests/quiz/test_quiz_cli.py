"""The `coursegen quiz` commands: thin wrappers, clear errors, nothing half-written."""

from __future__ import annotations

import json


from tests.cli import run_cli


def test_show_prints_one_students_variant_deterministically(course):
    first = run_cli("quiz", "show", "--root", str(course), "--lesson", "mini", "--student", "alice")
    second = run_cli("quiz", "show", "--root", str(course), "--lesson", "mini", "--student", "alice")
    assert first.exit_code == 0 and first.output == second.output and "Student: alice" in first.output


def test_show_in_chinese_prints_the_chinese_text(course):
    result = run_cli("quiz", "show", "--root", str(course), "-l", "mini", "--lang", "zh")
    assert "哪个矩阵把" in result.output


def test_show_with_roster_writes_one_file_per_student(course, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,name\nalice,A\nbob,B\n", encoding="utf-8")
    out = tmp_path / "variants"
    result = run_cli(
        "quiz", "show", "--root", str(course), "-l", "mini", "--roster", str(roster), "-o", str(out), "--format", "json"
    )
    assert result.exit_code == 0
    files = sorted(p.name for p in out.iterdir())
    assert files == ["mini-alice.json", "mini-bob.json"]
    assert json.loads((out / "mini-bob.json").read_text())["student"] == "bob"


def test_yaml_roster_is_accepted(course, tmp_path):
    roster = tmp_path / "roster.yaml"
    roster.write_text("students: [alice, bob, carol]\n", encoding="utf-8")
    result = run_cli(
        "quiz",
        "export",
        "--root",
        str(course),
        "--format",
        "json",
        "--roster",
        str(roster),
        "-o",
        str(tmp_path / "q.json"),
    )
    assert result.exit_code == 0 and len(json.loads((tmp_path / "q.json").read_text())["variants"]) == 3


def test_unknown_lesson_exits_1_naming_the_lessons(course):
    result = run_cli("quiz", "show", "--root", str(course), "-l", "nope")
    assert result.exit_code == 1 and "no lesson 'nope' in the course; lessons are: mini" in result.output


def test_export_writes_the_file_and_nothing_on_error(course, tmp_path, replace_in):
    target = tmp_path / "quiz.gift"
    assert run_cli("quiz", "export", "--root", str(course), "--format", "gift", "-o", str(target)).exit_code == 0
    assert target.read_text(encoding="utf-8").count("::mini/") == 10
    replace_in(course / "content/quizzes/mini.yaml", "answer: tying_saved", "answer: nothing_here")
    broken = tmp_path / "broken.gift"
    result = run_cli("quiz", "export", "--root", str(course), "--format", "gift", "-o", str(broken))
    assert result.exit_code == 1 and not broken.exists() and "unknown answer function 'nothing_here'" in result.output


def test_verify_exits_1_with_file_line_problems(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "{value: 13, feedback", "{value: 30, feedback")
    result = run_cli("quiz", "verify", "--root", str(course))
    assert result.exit_code == 1 and "content/quizzes/mini.yaml:" in result.output


def test_grade_writes_scores_csv(course, tmp_path):
    responses = tmp_path / "responses.csv"
    responses.write_text(
        "student,quiz,question,response\nann,mini,tf,false\nann,mini,num,30\nben,mini,tf,true\n", encoding="utf-8"
    )
    scores = tmp_path / "scores.csv"
    result = run_cli(
        "quiz",
        "grade",
        "--root",
        str(course),
        str(responses),
        "-o",
        str(scores),
        "--gradebook",
        str(tmp_path / "g.sqlite"),
    )
    assert result.exit_code == 0
    assert scores.read_text().splitlines() == [
        '"student","quiz","score","max_score","percent"',  # every cell quoted (grader.textsafe.csv_text)
        '"ann","mini","2","10","20"',
        '"ben","mini","0","10","0"',
    ]


def test_quiz_with_lesson_and_student_is_short_for_quiz_show(course):
    short = run_cli("quiz", "--root", str(course), "--lesson", "mini", "--student", "alice")
    full = run_cli("quiz", "show", "--root", str(course), "--lesson", "mini", "--student", "alice")
    assert short.exit_code == 0 and short.output == full.output
