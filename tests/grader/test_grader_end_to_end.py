"""The real thing: `coursegen grade` and `coursegen verify` through the real sandbox and the
real checks in grader/checks, on the submissions in tests/fixtures/submissions."""

import json
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from tests.first_course import MODULES, exercises_in
from tests.nonempty import nonempty

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "submissions"

pytestmark = pytest.mark.slow


def coursegen(*args, cwd=None):
    return subprocess.run(["coursegen", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=900)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every fixture submission graded once, as one batch (student = fixture folder)."""
    tmp = tmp_path_factory.mktemp("e2e")
    folder = tmp / "submissions"
    shutil.copytree(FIXTURES, folder)
    (folder / "stub").mkdir()
    for module in MODULES:  # the stubs as students receive them
        shutil.copy(ROOT / "exercises" / f"{module}.py", folder / "stub" / f"{module}.py")
    book = tmp / "gradebook.sqlite"
    done = coursegen("grade", folder, "--format", "json", "--gradebook", book, "--seed", "1234", "--workers", "2")
    assert done.returncode == 0, done.stderr
    results = {r["submission"]: r for r in json.loads(done.stdout)}
    return folder, book, results


def test_correct_submissions_written_differently_score_full_marks(graded):
    _, _, results = graded
    correct = {name: r for name, r in results.items() if name.startswith("correct/")}
    assert len(correct) == len(MODULES)
    for name, result in correct.items():
        assert result["max_score"] > 0 and result["score"] == result["max_score"], (name, result["tests"])


def test_stubs_score_zero(graded):
    _, _, results = graded
    stubs = [r for name, r in results.items() if name.startswith("stub/")]
    assert len(stubs) == len(MODULES) and all(r["score"] == 0 and r["max_score"] > 0 for r in stubs)


def test_syntax_errors_score_zero_with_a_one_line_reason(graded):
    _, _, results = graded
    broken = [r for name, r in results.items() if name.startswith("syntax_error/")]
    assert len(broken) == len(MODULES)
    for result in broken:
        assert result["score"] == 0 and len(result["problems"]) == 1
        assert "syntax error" in result["problems"][0] and "\n" not in result["problems"][0]


def test_missing_functions_score_zero_for_them(graded):
    _, _, results = graded
    for name, result in nonempty(results.items()):
        if name.startswith("missing_function/"):
            missing = [t for t in result["tests"] if "is not defined" in t["output"]]
            assert missing and all(t["score"] == 0 for t in missing), name
            assert result["score"] < result["max_score"]


def test_renamed_file_is_graded_by_the_names_it_defines(graded):
    _, _, results = graded
    renamed = results["renamed/smith_123_rope-1.py"]
    assert {t["exercise"] for t in renamed["tests"]} == {e.name for e in exercises_in("rope")}  # matched to rope
    assert renamed["score"] == renamed["max_score"] > 0


def test_hidden_checks_carry_no_feedback(graded):
    _, _, results = graded
    for result in nonempty(results.values()):
        for test in result["tests"]:
            if test["hidden"] and test["status"] == "failed":
                # the property it checks, in words, and the hints of the mistakes it matched; never
                # the inputs, the expected values or the student's output
                assert test["output"].startswith("This hidden check failed")
                assert "tensor(" not in test["output"] and "got " not in test["output"]


@pytest.mark.parametrize("fmt", ["gradescope", "junit", "markdown", "text"])
def test_reports_of_the_same_batch_parse(graded, fmt, tmp_path):
    folder, book, results = graded
    out = tmp_path / f"report.{fmt}"
    done = coursegen("grade", folder, "--format", fmt, "--gradebook", book, "--output", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    if fmt == "gradescope":
        data = json.loads(text)
        assert len(data) == len(results)
        for entry in data:
            assert entry["score"] == sum(t["score"] for t in entry["tests"])
            assert all(t["visibility"] in ("visible", "after_due_date") for t in entry["tests"])
    elif fmt == "junit":
        assert len(ET.fromstring(text).findall("testsuite")) == len(results)
    elif fmt == "markdown":
        assert text.count("\n## ") + text.startswith("## ") == len(results)
    else:
        assert "correct (correct/rope.py)" in text


def test_notebook_submission_is_graded(tmp_path):
    source = (ROOT / "solutions" / "rope.py").read_text()
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "metadata": {"coursegen": {"lesson": "rope", "role": "setup"}},
                "source": "import torch\n%matplotlib inline\n",
                "outputs": [],
                "execution_count": None,
            },
            {
                "cell_type": "code",
                "metadata": {"coursegen": {"lesson": "rope", "role": "text"}},
                "source": "input('never runs')\n",
                "outputs": [],
                "execution_count": None,
            },
            {
                "cell_type": "code",
                "metadata": {
                    "coursegen": {"lesson": "rope", "role": "exercise", "exercise": "apply_rope"},
                    "tags": ["exercise"],
                },
                "source": source,
                "outputs": [],
                "execution_count": None,
            },
        ],
    }
    path = tmp_path / "rope-lesson.ipynb"
    path.write_text(json.dumps(notebook))
    done = coursegen("grade", path, "--format", "json", "--fail-under", "100")
    assert done.returncode == 0, done.stderr + done.stdout
    result = json.loads(done.stdout)
    assert result["score"] == result["max_score"] > 0


def test_verify_passes_for_a_module_through_the_real_sandbox():
    done = coursegen("verify", "--module", "rope")
    assert done.returncode == 0, done.stdout + done.stderr
    import re

    assert re.search(r"^rope\s+reference\s+ok", done.stdout, re.MULTILINE)
    assert re.search(r"^rope\s+values\s+ok\s+29 odd values x \d+ checks", done.stdout, re.MULTILINE)
    assert "7 of 7 verified" in done.stdout or "FAIL" not in done.stdout


def test_real_batch_killed_with_sigkill_resumes_and_grades_each_submission_once(tmp_path):
    import os
    import signal
    import sqlite3
    import time

    folder = tmp_path / "submissions"
    folder.mkdir()
    for i in range(10):
        source = FIXTURES / "correct" / "tokens.py" if i % 2 else ROOT / "exercises" / "tokens.py"
        (folder / f"student{i}_tokens.py").write_text(source.read_text())
    book = tmp_path / "gradebook.sqlite"
    command = [
        "coursegen",
        "grade",
        str(folder),
        "--gradebook",
        str(book),
        "--seed",
        "5",
        "--workers",
        "2",
        "--format",
        "json",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    done = 0
    while time.monotonic() < deadline and done < 2 and process.poll() is None:
        time.sleep(0.05)
        try:
            db = sqlite3.connect(book)
            done = db.execute("SELECT count(*) FROM runs").fetchone()[0]
            db.close()
        except sqlite3.Error:
            done = 0
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    finished = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert finished.returncode == 0, finished.stderr
    assert len(json.loads(finished.stdout)) == 10
    db = sqlite3.connect(book)
    keys = db.execute("SELECT student, submission FROM runs").fetchall()
    db.close()
    assert len(keys) == 10 and len(set(keys)) == 10
