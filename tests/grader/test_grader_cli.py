"""`coursegen grade`, `coursegen gradebook`: options, outputs and exit codes (0 graded, 1 low score
with --fail-under, 2 could not run). Only malformed submissions here, which never reach the
sandbox; real grading is in test_grader_end_to_end.py."""

import csv
import io
import json
from pathlib import Path

import pytest

from tests.cli import run_cli
from grader.reporting.gradebook import Gradebook

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"


@pytest.fixture
def broken(tmp_path) -> Path:
    path = tmp_path / "rope.py"
    path.write_bytes(b"def apply_rope(x):\n    return x  \xff\n")
    return path


def test_malformed_submission_is_graded_zero_with_exit_0(broken):
    result = run_cli("grade", broken, "--checks", CHECKS, "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["score"] == 0 and data["max_score"] == 4
    offset = broken.read_bytes().index(b"\xff")
    assert data["problems"] == [f"the file is not UTF-8 text (byte 0xff at offset {offset})"]


def test_fail_under_makes_a_low_score_exit_1(broken):
    assert run_cli("grade", broken, "--checks", CHECKS, "--fail-under", "50").exit_code == 1


def test_output_file_receives_the_gradescope_report(broken, tmp_path):
    out = tmp_path / "results" / "results.json"
    result = run_cli("grade", broken, "--checks", CHECKS, "--format", "gradescope", "--output", out)
    assert result.exit_code == 0 and result.stdout == ""
    data = json.loads(out.read_text())
    assert data["score"] == 0 and {t["status"] for t in data["tests"]} == {"failed"}


def test_unknown_module_exits_2(broken):
    result = run_cli("grade", broken, "--module", "nope")
    assert result.exit_code == 2 and "--module 'nope'" in result.stderr


def test_missing_path_exits_2(tmp_path):
    assert run_cli("grade", tmp_path / "absent.py").exit_code == 2


def test_bad_shard_exits_2(broken):
    result = run_cli("grade", broken, "--shard", "5/4", "--seed", "1")
    assert result.exit_code == 2 and "K must be between 1 and N" in result.stderr


def test_shard_without_a_seed_exits_2(broken):
    result = run_cli("grade", broken, "--shard", "1/4")
    assert result.exit_code == 2 and "--shard needs --seed" in result.stderr


def test_corrupt_gradebook_exits_2_with_one_clear_line(broken, tmp_path):
    book = tmp_path / "g.sqlite"
    book.write_bytes(b"garbage" * 1000)
    result = run_cli("grade", broken, "--checks", CHECKS, "--gradebook", book)
    assert result.exit_code == 2
    assert "not a readable gradebook" in result.stderr and "Traceback" not in result.stderr


def test_broken_checks_exit_2(broken, tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_broken.py").write_text("import definitely_not_a_module\n")
    result = run_cli("grade", broken, "--checks", checks)
    assert result.exit_code == 2 and "could not be collected" in result.stderr


def test_gradebook_export_writes_csv(broken, tmp_path):
    book = tmp_path / "g.sqlite"
    assert run_cli("grade", broken, "--checks", CHECKS, "--gradebook", book).exit_code == 0
    result = run_cli("gradebook", "export", "--csv", "--gradebook", book)
    assert result.exit_code == 0
    rows = list(csv.reader(io.StringIO(result.stdout)))  # every cell is quoted (grader.textsafe.csv_text)
    assert rows[0][:3] == ["student", "submission", "score"] and rows[1][0] == "rope"


def test_gradebook_export_of_a_missing_file_exits_2(tmp_path):
    result = run_cli("gradebook", "export", "--csv", "--gradebook", tmp_path / "absent.sqlite")
    assert result.exit_code == 2 and "no such gradebook" in result.stderr


def test_gradebook_merge_command(broken, tmp_path):
    a, b, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "all.sqlite"
    for book in (a, b):
        assert run_cli("grade", broken, "--checks", CHECKS, "--gradebook", book, "--seed", "4").exit_code == 0
    result = run_cli("gradebook", "merge", a, b, "-o", out)
    assert result.exit_code == 0
    with Gradebook(out) as merged:
        assert len(merged.runs()) == 2


def test_gradebook_merge_into_an_existing_file_exits_2(tmp_path):
    a = tmp_path / "a.sqlite"
    Gradebook(a).close()
    assert run_cli("gradebook", "merge", a, a, "-o", a).exit_code == 2


def test_grade_help_lists_every_option():
    text = run_cli("grade", "--help").stdout
    for option in (
        "--module",
        "--format",
        "--output",
        "--gradebook",
        "--workers",
        "--shard",
        "--seed",
        "--lang",
        "--fail-under",
        "--roster",
    ):
        assert option in text


def test_empty_folder_exits_2(tmp_path):
    result = run_cli("grade", tmp_path, "--gradebook", tmp_path / "g.sqlite")
    assert result.exit_code == 2 and "no submissions" in result.stderr


def test_roster_names_the_students_of_a_batch(tmp_path):
    folder = tmp_path / "uploads"
    folder.mkdir()
    (folder / "smith_123_rope-1.py").write_bytes(b"\xff")
    roster = tmp_path / "roster.csv"
    roster.write_text("student,submission\ns123,smith_123_rope-1.py\n")
    result = run_cli(
        "grade",
        folder,
        "--roster",
        roster,
        "--gradebook",
        tmp_path / "g.sqlite",
        "--checks",
        CHECKS,
        "--format",
        "json",
        "--lang",
        "zh",
    )
    assert result.exit_code == 0, result.stderr
    [entry] = json.loads(result.stdout)
    assert entry["student"] == "s123" and entry["max_score"] == 4 and "UTF-8" in entry["problems"][0]
    assert entry["problems"][0].startswith("文件不是 UTF-8 文本")
