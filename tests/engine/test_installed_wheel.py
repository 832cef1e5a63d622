"""The distribution as a user installs it: the wheel built from the sources (what `pip install .`
builds; built once per session, export/deployed.py's `project_wheel`), installed into a fresh virtual
environment (no system site-packages, nothing of this repository or of the development environment)
by one `pip install torch==2.13.0 <wheel>` (its other dependencies at this environment's versions),
then used with the commands a user types, from folders outside the repository.

It proves what the wheel holds (the engine with its templates and the `coursegen new` course as
package data; no top-level `cli`, `solutions`, `exercises`, no grader/checks), that none of those
course modules can be imported from a neutral folder, that a new course is checked, verified, built
and graded from its own folder, and that the installed tool makes the same site, the same grade and
the same Gradescope export of a course (a copy of tests/courses/statistics) as the checkout does.

One environment per test session (the module fixture): installing takes tens of seconds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from export.deployed import clean_env, fresh_venv, must, pip_install, project_wheel, run, tracked_files

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TORCH_PIN = "torch==2.13.0"
STATISTICS = REPO / "tests" / "courses" / "statistics"
EXPORT_LESSON = "center"


def development_versions() -> str:
    """pip constraints: the versions of this environment's distributions. The wheel's dependencies
    are installed at the same versions as the checkout's, so that the comparisons below see the
    engine's packaging only (a newer Pygments, for one, writes `"` where an older one wrote `&quot;`)."""
    from importlib import metadata

    from packaging.utils import canonicalize_name

    pins = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    return "".join(
        f"{name}=={version}\n" for name, version in sorted(pins.items()) if name not in ("coursegen", "torch")
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """A fresh venv and the install of the session's wheel into it, with torch."""
    folder = tmp_path_factory.mktemp("installed")
    venv = fresh_venv(folder / "venv")
    wheel = project_wheel(tmp_path_factory)
    constraints = folder / "constraints.txt"
    constraints.write_text(development_versions(), encoding="utf-8")
    pip_install(venv, TORCH_PIN, str(wheel), "-c", str(constraints))
    neutral = folder / "neutral"
    neutral.mkdir()
    return {
        "venv": venv,
        "python": venv / "bin" / "python",
        "wheel": wheel,
        "neutral": neutral,
        "env": clean_env([venv / "bin"]),
    }


def coursegen(built: dict, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed console script, as typed in a shell whose PATH starts with the venv."""
    return run(["coursegen", *args], cwd=cwd, env=built["env"])


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# A correct submission to the statistics course's `center` exercises, written as a student would
# (not the course's reference).
CORRECT_CENTER = """import torch


def mean(x):
    return x.mean(dim=-1)


def median(x):
    return torch.quantile(x, 0.5, dim=-1)
"""


# ---- what the wheel holds -------------------------------------------------------------------------


def test_the_wheel_holds_the_engine_with_its_package_data_and_no_course(built):
    with zipfile.ZipFile(built["wheel"]) as archive:
        names = set(archive.namelist())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        scripts = archive.read(entry_points).decode()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"coursegen", "grader"}
    assert not [n for n in names if n.startswith("grader/checks/")]
    assert "coursegen = coursegen.cli:main" in scripts
    assert "coursegen/cli.py" in names and "coursegen/__main__.py" in names
    sources = tracked_files()
    # every engine template, asset and export template is package data, as real files
    templates = [n for n in sources if n.startswith("templates/")]
    assert len(templates) > 20
    assert {f"coursegen/{n}" for n in templates} <= names
    # the course `coursegen new` writes
    new_course = [n for n in sources if n.startswith("coursegen/new_course/")]
    assert {"coursegen/new_course/README.md", "coursegen/new_course/grader/checks/test_vectors.py"} <= set(new_course)
    assert set(new_course) <= names
    # every engine module of the grader, none of the course's checks
    grader = [n for n in sources if n.startswith("grader/") and not n.startswith("grader/checks/")]
    assert set(grader) <= names


def test_course_modules_and_a_generic_cli_cannot_be_imported_from_a_neutral_folder(built):
    for module in ("solutions", "exercises", "cli", "grader.checks"):
        done = run([str(built["python"]), "-c", f"import {module}"], cwd=built["neutral"], env=built["env"])
        assert done.returncode == 1 and f"No module named '{module}'" in done.stderr, (module, done.stderr)
    done = must(
        run(
            [str(built["python"]), "-c", "import coursegen, grader; print(coursegen.__file__, grader.__file__)"],
            cwd=built["neutral"],
            env=built["env"],
        ),
        "import the engine",
    )
    for path in done.stdout.split():
        assert Path(path).is_relative_to(built["venv"]) and "site-packages" in path, path


# ---- a new course ---------------------------------------------------------------------------------


def test_a_new_course_is_checked_verified_built_and_graded_from_its_own_folder(built):
    course = built["neutral"].parent / "my-course"
    must(coursegen(built, "new", str(course), cwd=built["neutral"]), "coursegen new")
    for command in (["check"], ["stubs", "--check"], ["verify"], ["build", "--quiet"]):
        must(coursegen(built, *command, cwd=course), f"coursegen {' '.join(command)}")
    page = (course / "_site" / "en" / "dot-product.html").read_text(encoding="utf-8")
    assert "<svg" in page and (course / "_site" / "zh" / "dot-product.html").is_file()
    stub = json.loads(
        must(coursegen(built, "grade", "exercises/vectors.py", "--format", "json", cwd=course), "grade the stub").stdout
    )
    assert stub["score"] == 0 and stub["max_score"] > 0
    reference = json.loads(
        must(
            coursegen(built, "grade", "solutions/vectors.py", "--format", "json", cwd=course), "grade the reference"
        ).stdout
    )
    assert reference["score"] == reference["max_score"] == stub["max_score"]


# ---- a copy of a course ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def statistics(built) -> Path:
    """The statistics course of the tests, in a folder of its own outside the repository."""
    course = built["neutral"].parent / "statistics"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "_site", ".coursegen-cache")
    shutil.copytree(STATISTICS, course, ignore=ignore)
    return course


def checkout(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The checkout's own entry point (`python cli.py ...`) in the development environment."""
    return subprocess.run(
        [sys.executable, str(REPO / "cli.py"), *args], cwd=cwd, capture_output=True, text=True, timeout=1800
    )


def test_a_copy_of_a_course_builds_the_site_the_checkout_builds(built, statistics, tmp_path):
    must(coursegen(built, "check", cwd=statistics), "coursegen check")
    must(coursegen(built, "build", "--quiet", "-o", str(tmp_path / "installed"), cwd=statistics), "coursegen build")
    must(
        checkout("build", "--quiet", "--root", str(STATISTICS), "-o", str(tmp_path / "checkout"), cwd=tmp_path),
        "python cli.py build",
    )
    installed, expected = tree_digest(tmp_path / "installed"), tree_digest(tmp_path / "checkout")
    assert sorted(installed) == sorted(expected)
    assert [name for name in expected if installed[name] != expected[name]] == []


def test_a_copy_of_a_course_grades_a_submission_as_the_checkout_does(built, statistics, tmp_path):
    submission = tmp_path / "center.py"
    submission.write_text(CORRECT_CENTER, encoding="utf-8")
    args = ("grade", str(submission), "--seed", "7", "--format", "json")
    graded = json.loads(must(coursegen(built, *args, cwd=statistics), "coursegen grade").stdout)
    assert graded["max_score"] > 0 and graded["score"] == graded["max_score"], graded
    expected = json.loads(must(checkout(*args, "--root", str(STATISTICS), cwd=tmp_path), "python cli.py grade").stdout)
    assert graded == expected


def test_a_copy_of_a_course_exports_the_gradescope_zip_the_checkout_exports(built, statistics, tmp_path):
    args = ("export", "gradescope", "--lesson", EXPORT_LESSON)
    must(coursegen(built, *args, "-o", str(tmp_path / "installed.zip"), cwd=statistics), "coursegen export")
    must(
        checkout(*args, "-o", str(tmp_path / "checkout.zip"), "--root", str(STATISTICS), cwd=tmp_path),
        "python cli.py export",
    )
    with zipfile.ZipFile(tmp_path / "installed.zip") as archive:
        names = set(archive.namelist())
    assert {
        "package/coursegen_cli/commands/grade.py",
        "package/grader/running/grade.py",
        "package/solutions/center.py",
    } <= names
    assert any(n.startswith("package/grader/checks/test_") for n in names)
    assert (tmp_path / "installed.zip").read_bytes() == (tmp_path / "checkout.zip").read_bytes()
