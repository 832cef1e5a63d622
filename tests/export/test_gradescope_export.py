"""`coursegen export gradescope`: an autograder zip that follows Gradescope's specification,
run locally in a folder laid out like Gradescope's /autograder."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path

import pytest

from coursegen.exports.files import ExportError
from coursegen.exports.gradescope import export_gradescope

from .helpers import LESSON_EXERCISES, LESSON_ID, isolated_python, pip_install_target, with_exercise_cell

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
    assert {"package/pyproject.toml", "package/cli.py", "package/solutions/tokens.py",
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


# ---- running it as Gradescope does ------------------------------------------------------------

@pytest.fixture(scope="session")
def gradescope_python(gradescope_zip, tmp_path_factory) -> Path:
    """setup.sh's effect, without root or network: the bundled package installed with pip."""
    base = tmp_path_factory.mktemp("gradescope-env")
    with zipfile.ZipFile(gradescope_zip) as archive:
        archive.extractall(base / "source")
    pip_install_target(base / "source" / "package", base / "site")
    return isolated_python(base / "site", base / "bin")


def autograder_root(zip_path: Path, folder: Path) -> Path:
    """A folder laid out like Gradescope's /autograder: source/ (the zip), submission/, results/."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(folder / "source")
    for name in ("run_autograder", "setup.sh"):
        path = folder / "source" / name
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    shutil.copy2(folder / "source" / "run_autograder", folder / "run_autograder")
    (folder / "submission").mkdir()
    (folder / "results").mkdir()
    return folder


def run_autograder(root: Path, python: Path) -> tuple[subprocess.CompletedProcess, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSEGEN_", "PYTHON"))}
    env.update(AUTOGRADER_ROOT=str(root), COURSEGEN_PYTHON=str(python))
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return done, results


def assert_valid_results(results: dict) -> None:
    """Gradescope's results.json schema, as far as our reports use it."""
    assert isinstance(results["score"], (int, float))
    for test in results["tests"]:
        assert TEST_KEYS <= set(test), test
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in ("visible", "after_due_date")
        assert 0 <= test["score"] <= test["max_score"]
    if results["tests"]:
        assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
        assert results["max_score"] == pytest.approx(sum(t["max_score"] for t in results["tests"]))


def test_a_correct_submission_gets_full_marks_and_hidden_checks_show_after_the_due_date(
        gradescope_zip, gradescope_python, lesson_notebooks, tmp_path):
    root = autograder_root(gradescope_zip, tmp_path)
    (root / "submission" / f"{LESSON_ID}.ipynb").write_bytes(lesson_notebooks["solution"])
    done, results = run_autograder(root, gradescope_python)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert_valid_results(results)
    assert results["score"] == results["max_score"] > 0
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_due_date"}
    assert {t["name"].split(":")[0] for t in results["tests"]} == set(LESSON_EXERCISES)


def test_a_catalogued_mistake_loses_points_and_its_hint_is_shown(
        gradescope_zip, gradescope_python, lesson_notebooks, tmp_path):
    from solutions.mistakes import catalogue

    wrong = next(m for m in catalogue("tokens") if m.id == "encode-unk-is-zero")
    root = autograder_root(gradescope_zip, tmp_path)
    (root / "submission" / f"{LESSON_ID}.ipynb").write_bytes(
        with_exercise_cell(lesson_notebooks["solution"], "encode", wrong.source))
    done, results = run_autograder(root, gradescope_python)
    assert done.returncode == 0, done.stdout[-2000:]
    assert_valid_results(results)
    assert 0 < results["score"] < results["max_score"]
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert all(t["name"].startswith("encode:") for t in failed)
    assert any(wrong.hint["en"] in t["output"] for t in failed if t["visibility"] == "visible")
    assert all(wrong.hint["en"] not in t["output"] for t in failed if t["visibility"] == "after_due_date")


HOSTILE = '''\
import os, sys
for target in ({results!r}, "/autograder/results/results.json", "../results/results.json"):
    try:
        with open(target, "w") as handle:
            handle.write('{{"score": 999, "max_score": 1, "tests": []}}')
    except Exception:
        pass
sys.exit(0)


def encode(tokens, vocab, unk_token="<UNK>"):
    return [999]
'''


def test_a_hostile_submission_cannot_write_its_own_results_or_exit_its_way_to_marks(
        gradescope_zip, gradescope_python, tmp_path):
    root = autograder_root(gradescope_zip, tmp_path)
    results_path = root / "results" / "results.json"
    (root / "submission" / "smith_123_tokens.py").write_text(HOSTILE.format(results=str(results_path)))
    done, results = run_autograder(root, gradescope_python)
    assert done.returncode == 0, done.stdout[-2000:]
    assert_valid_results(results)
    assert results["score"] == 0
    assert results["max_score"] > 0 and results["tests"]
    assert all(t["status"] == "failed" for t in results["tests"])


@pytest.mark.parametrize("kind", ["reference_file", "correct_notebook", "linked_folder"])
def test_a_link_in_the_submission_is_never_followed(gradescope_zip, gradescope_python, lesson_notebooks,
                                                     tmp_path, kind):
    """A link to the references in /autograder/source (or to a correct notebook elsewhere) would
    be graded as the student's code, with full marks: it is refused, and a linked folder is not entered."""
    root = autograder_root(gradescope_zip, tmp_path / "autograder")
    submission = root / "submission"
    if kind == "reference_file":
        references = next((root / "source").rglob("solutions/tokens.py"))
        (submission / "tokens.py").symlink_to(references)
    elif kind == "correct_notebook":
        elsewhere = tmp_path / "elsewhere.ipynb"
        elsewhere.write_bytes(lesson_notebooks["solution"])
        (submission / f"{LESSON_ID}.ipynb").symlink_to(elsewhere)
    else:
        (submission / "work").symlink_to(next((root / "source").rglob("solutions/tokens.py")).parent)
    done, results = run_autograder(root, gradescope_python)
    assert done.returncode == 0, done.stdout[-2000:]
    assert results["score"] == 0
    if kind == "linked_folder":
        assert results["tests"] == []                       # nothing found: the folder was not entered
    else:
        assert_valid_results(results)
        assert "symbolic link" in results["output"] and results["max_score"] > 0


def test_an_empty_submission_folder_gets_zero_and_a_sentence_in_both_languages(
        gradescope_zip, gradescope_python, tmp_path):
    root = autograder_root(gradescope_zip, tmp_path)
    done, results = run_autograder(root, gradescope_python)
    assert done.returncode == 0
    assert results["score"] == 0 and results["tests"] == []
    assert f"{LESSON_ID}.ipynb" in results["output"] and "提交" in results["output"]


def test_the_command_writes_the_zip_and_names_an_unknown_lesson_with_exit_1(course_root, tmp_path):
    ok = subprocess.run(["coursegen", "export", "gradescope", "--lesson", LESSON_ID, "-o", str(tmp_path / "a.zip"),
                         "--root", str(course_root)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert zipfile.is_zipfile(tmp_path / "a.zip") and "wrote" in ok.stdout
    bad = subprocess.run(["coursegen", "export", "gradescope", "--lesson", "nope", "-o", str(tmp_path / "b.zip"),
                          "--root", str(course_root)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "no lesson 'nope'" in bad.stderr and not (tmp_path / "b.zip").exists()
