"""`coursegen export gradescope`: an autograder zip that follows Gradescope's specification,
run locally in a folder laid out like Gradescope's /autograder."""
from __future__ import annotations

import json
import subprocess
import zipfile

import pytest

from coursegen.exports.files import ExportError
from coursegen.exports.gradescope import export_gradescope

from .helpers import LESSON_EXERCISES, LESSON_ID

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
    assert {"package/pyproject.toml", "package/coursegen_cli.py", "package/solutions/tokens.py",
            "package/solutions/mistakes/tokens.py", "autograde.py"} <= names
    assert checks == (course_root / "grader" / "checks" / "test_tokens.py").read_text()
    assert "pytest.mark.hidden" in checks
    assert assignment["exercises"] == list(LESSON_EXERCISES) and assignment["notebook"] == f"{LESSON_ID}.ipynb"


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


def test_the_command_writes_the_zip_and_names_an_unknown_lesson_with_exit_1(course_root, tmp_path):
    ok = subprocess.run(["coursegen", "export", "gradescope", "--lesson", LESSON_ID, "-o", str(tmp_path / "a.zip"),
                         "--root", str(course_root)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert zipfile.is_zipfile(tmp_path / "a.zip") and "wrote" in ok.stdout
    bad = subprocess.run(["coursegen", "export", "gradescope", "--lesson", "nope", "-o", str(tmp_path / "b.zip"),
                          "--root", str(course_root)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "no lesson 'nope'" in bad.stderr and not (tmp_path / "b.zip").exists()
