"""`coursegen export gradescope`: an autograder zip that follows Gradescope's specification,
run locally in a folder laid out like Gradescope's /autograder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from coursegen.exports.files import ExportError
from coursegen.exports.gradescope import export_gradescope

from .helpers import LESSON_EXERCISES, LESSON_ID, REPO

TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility"}


# ---- the zip ----------------------------------------------------------------------------------


def test_setup_and_run_autograder_sit_at_the_zip_root_and_are_executable(gradescope_zip):
    with zipfile.ZipFile(gradescope_zip) as archive:
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
        assert archive.read("run_autograder").startswith(b"#!")
        assert archive.read("setup.sh").startswith(b"#!/usr/bin/env bash")
    assert modes["setup.sh"] == modes["run_autograder"] == 0o755


def test_the_zip_carries_the_full_grader_with_solutions_and_hidden_checks(gradescope_zip, course_root):
    with zipfile.ZipFile(gradescope_zip) as archive:
        names = set(archive.namelist())
        checks = archive.read("package/grader/checks/test_tokens.py").decode()
        assignment = json.loads(archive.read("assignment.json"))
    assert {
        "package/pyproject.toml",
        "package/coursegen_cli/__init__.py",
        "package/coursegen_cli/commands/grade.py",
        "package/solutions/tokens.py",
        "package/solutions/mistakes/tokens.py",
        "autograde.py",
    } <= names
    assert checks == (course_root / "grader" / "checks" / "test_tokens.py").read_text()
    assert "pytest.mark.hidden" in checks
    assert assignment["exercises"] == list(LESSON_EXERCISES) and assignment["assignment"] == LESSON_ID
    assert assignment["expects"]["notebooks"] == [f"{LESSON_ID}.ipynb"]
    assert "lesson" not in assignment


def test_setup_installs_cpu_torch_into_a_venv_and_the_package(gradescope_zip):
    with zipfile.ZipFile(gradescope_zip) as archive:
        setup = archive.read("setup.sh").decode()
    assert "--index-url https://download.pytorch.org/whl/cpu" in setup
    assert '-m pip install "$SOURCE/package"' in setup and "-m venv" in setup
    assert 'chmod -R go-rwx "$SITE/solutions"' in setup  # student code runs as another user


def test_exporting_twice_gives_byte_identical_zips(course_root, gradescope_zip, tmp_path):
    export_gradescope(course_root, LESSON_ID, tmp_path / "again.zip")
    assert (tmp_path / "again.zip").read_bytes() == gradescope_zip.read_bytes()


def test_an_output_that_is_not_a_zip_is_refused(course_root, tmp_path):
    with pytest.raises(ExportError, match=r"\.zip"):
        export_gradescope(course_root, LESSON_ID, tmp_path / "autograder.tar")
    assert list(tmp_path.iterdir()) == []


# Running the zip as Gradescope does (setup.sh into a fresh venv, run_autograder per submission):
# test_deployed_gradescope.py.


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_run_autograder_with_another_python_grades_with_the_course_inside_the_zip(gradescope_zip, tmp_path):
    # docs/instructors.md: test the bundle with your own Python (COURSEGEN_PYTHON=python), which has
    # the engine and torch but not the package setup.sh installs; the course must come from the zip
    root = tmp_path / "ag"
    with zipfile.ZipFile(gradescope_zip) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    shutil.copy2(REPO / "solutions" / "tokens.py", root / "submission" / "tokens.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("COURSEGEN_")}
    env.update(AUTOGRADER_ROOT=str(root), COURSEGEN_PYTHON=sys.executable)

    def encode_checks() -> list[bool]:
        done = subprocess.run(
            ["bash", str(root / "source" / "run_autograder")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        tests = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))["tests"]
        return [t["score"] == t["max_score"] for t in tests if t["name"].startswith("encode: ")]

    passed = encode_checks()
    assert passed and all(passed)
    # the zip's own reference is the one graded against: made wrong, the correct submission fails
    reference = root / "source" / "package" / "solutions" / "tokens.py"
    text = reference.read_text(encoding="utf-8")
    assert text.count("    return ids\n") == 1
    reference.write_text(text.replace("    return ids\n", "    return [i + 1 for i in ids]\n"), encoding="utf-8")
    assert not all(encode_checks())


def test_the_command_writes_the_zip_and_names_an_unknown_lesson_with_exit_1(course_root, tmp_path):
    ok = subprocess.run(
        [
            "coursegen",
            "export",
            "gradescope",
            "--lesson",
            LESSON_ID,
            "-o",
            str(tmp_path / "a.zip"),
            "--root",
            str(course_root),
        ],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert zipfile.is_zipfile(tmp_path / "a.zip") and "wrote" in ok.stdout
    bad = subprocess.run(
        [
            "coursegen",
            "export",
            "gradescope",
            "--lesson",
            "nope",
            "-o",
            str(tmp_path / "b.zip"),
            "--root",
            str(course_root),
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "no lesson 'nope'" in bad.stderr and not (tmp_path / "b.zip").exists()
