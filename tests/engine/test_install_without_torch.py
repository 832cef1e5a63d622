"""The engine installed where torch is not: what `pip install <repository>` builds (the session's wheel,
export/deployed.py's `project_wheel`), installed into a fresh virtual environment (no system
site-packages, nothing of the development environment, torch never installed), then a new
course made, checked, verified, built, graded and exported for Gradescope there, with the commands a
user types, from folders outside the repository. The Gradescope export is then deployed as
Gradescope does (its setup.sh into another fresh venv) and grades a submission.

The notebooks and the exported setup never mention torch, and torch cannot be imported anywhere in
either environment: nothing of this would run if any command still needed it.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from export.deployed import (
    clean_env,
    deploy_gradescope,
    fresh_venv,
    installed_distributions,
    must,
    pip_install,
    project_wheel,
    run,
    run_autograder,
)
from test_installed_wheel import development_versions

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("notorch")
    venv = fresh_venv(folder / "venv")
    constraints = folder / "constraints.txt"
    constraints.write_text(development_versions(), encoding="utf-8")  # the same versions as the checkout's
    pip_install(venv, str(project_wheel(tmp_path_factory)), "-c", str(constraints))
    python = venv / "bin" / "python"
    work = folder / "work"
    work.mkdir()
    return {"python": python, "env": clean_env([venv / "bin"]), "work": work}


def coursegen(installed: dict, *args: str, cwd: Path) -> str:
    done = must(run(["coursegen", *args], cwd=cwd, env=installed["env"]), f"coursegen {' '.join(args)}")
    return done.stdout + done.stderr


def test_torch_is_not_installed(installed):
    done = run([str(installed["python"]), "-c", "import torch"], cwd=installed["work"], env=installed["env"])
    assert done.returncode == 1 and "No module named 'torch'" in done.stderr
    installed_names = installed_distributions(installed["python"], installed["env"])
    assert "coursegen" in installed_names and not [name for name in installed_names if "torch" in name]


def test_a_new_course_is_checked_verified_built_graded_and_exported_without_torch(installed, tmp_path):
    work = installed["work"]
    coursegen(installed, "new", "course", cwd=work)
    course = work / "course"
    assert "OK:" in coursegen(installed, "check", cwd=course)
    verified = coursegen(installed, "verify", cwd=course)
    assert "mistake dot-no-sum  ok" in verified and "every quiz passes the quality gate" in verified
    coursegen(installed, "build", "--quiet", cwd=course)
    notebooks = sorted((course / "_site" / "notebooks").rglob("*.ipynb"))
    assert len(notebooks) == 2
    for notebook in notebooks:
        assert "torch" not in notebook.read_text(encoding="utf-8"), notebook
    guide = (course / "STUDENTS.md").read_text(encoding="utf-8")
    assert "torch" not in guide and "python -m pip install notebook\n" in guide

    graded = json.loads(coursegen(installed, "grade", "exercises/vectors.py", "--format", "json", cwd=course))
    assert graded["score"] == 0 and graded["max_score"] == 3
    student = tmp_path / "student"
    student.mkdir()
    (student / "vectors.py").write_text(
        "def dot(a, b):\n"
        "    if len(a) != len(b):\n"
        "        raise ValueError('lengths differ')\n"
        "    total = 0.0\n"
        "    for i in range(len(a)):\n"
        "        total += a[i] * b[i]\n"
        "    return total\n",
        encoding="utf-8",
    )
    graded = json.loads(coursegen(installed, "grade", str(student / "vectors.py"), "--format", "json", cwd=course))
    assert graded["score"] == graded["max_score"] == 3, graded

    target = tmp_path / "autograder.zip"
    coursegen(installed, "export", "gradescope", "--lesson", "dot-product", "-o", str(target), cwd=course)
    with zipfile.ZipFile(target) as archive:
        setup = archive.read("setup.sh").decode()
        pyproject = archive.read("package/pyproject.toml").decode()
    assert "torch" not in setup and "torch" not in pyproject

    # deployed as Gradescope deploys it: setup.sh into a fresh venv, then one submission graded
    deployment = deploy_gradescope(target, tmp_path / "gradescope", torch=False)
    done = run([str(deployment.python), "-c", "import torch"], cwd=tmp_path, env=clean_env())
    assert done.returncode == 1
    root = deployment.autograder_root(tmp_path / "autograder")
    (root / "submission" / "vectors.py").write_text((student / "vectors.py").read_text(), encoding="utf-8")
    finished, results = run_autograder(deployment, root)
    assert finished.returncode == 0, finished.stderr
    assert results["score"] == 3, results
