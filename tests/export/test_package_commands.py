"""A grading package ships only the commands that work there (coursegen/cli.py,
GRADING_PACKAGE_COMMANDS): run in the unpacked Gradescope package with nothing of `coursegen`
importable, `coursegen --help` lists `grade` alone, `coursegen build` is an unknown command (it
used to end in a traceback), and `coursegen grade` grades a file."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

# the package's own `coursegen` script: coursegen_cli:grading (templates/export/pyproject.toml.j2)
SCRIPT = "import sys; from coursegen_cli import grading; grading(sys.argv[1:], prog_name='coursegen')"


@pytest.fixture(scope="module")
def package(gradescope_zip, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(gradescope_zip) as archive:
        archive.extractall(folder)
    return folder / "package"


def in_package(package: Path, *args: str, code: str = SCRIPT, cwd: Path | None = None):
    """Python without site (so no editable coursegen), seeing the package and the installed
    libraries (click, pytest, the course's requirements) only."""
    libraries = dict.fromkeys([sysconfig.get_paths()["purelib"], *site.getsitepackages()])  # a venv's and its base's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package), *libraries])}
    return subprocess.run(
        [sys.executable, "-S", "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or package,
        timeout=300,
    )


def test_nothing_of_coursegen_is_importable_in_the_package(package):
    done = in_package(package, code="import coursegen")
    assert done.returncode != 0 and "No module named 'coursegen'" in done.stderr
    assert in_package(package, code="import coursegen_cli, grader, exercises").returncode == 0


def test_the_package_lists_only_the_commands_that_work_there(package):
    done = in_package(package, "--help")
    assert done.returncode == 0, done.stderr
    commands = done.stdout.split("Commands:")[1].split()
    assert commands[0] == "grade" and "build" not in commands and "report" not in commands


def test_coursegen_build_in_the_package_is_an_unknown_command_not_a_traceback(package):
    done = in_package(package, "build")
    assert done.returncode == 2
    assert "No such command 'build'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_coursegen_grade_grades_a_file_in_the_package(package, tmp_path):
    references = sorted(p for p in (package / "solutions").glob("*.py") if not p.name.startswith("_"))
    assert references
    submission = tmp_path / references[0].name
    submission.write_text(references[0].read_text(encoding="utf-8"), encoding="utf-8")
    done = in_package(package, "grade", str(submission), "--format", "json", "--seed", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["max_score"] > 0 and result["score"] == result["max_score"], result
