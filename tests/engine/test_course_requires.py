"""`requires:` in course.yaml: validated, and followed by the grader's warm worker (torch preloaded for
a course that requires it, never imported for one that does not), by the notebooks' setup cells, and
by the engine's lazy torch (`grader/lazy_torch.py`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader import course_requires

REPO = Path(__file__).resolve().parents[2]
NUMERICS = REPO / "tests" / "courses" / "numerics"


def copy_numerics(dest: Path) -> Path:
    shutil.copytree(NUMERICS, dest, ignore=shutil.ignore_patterns("_site", ".coursegen-cache", "__pycache__"))
    return dest


def requiring(course: Path, requires: str) -> Path:
    """The course with its `requires:` line replaced by `requires: <requires>`."""
    course_file = course / "content" / "course.yaml"
    text = course_file.read_text(encoding="utf-8")
    assert 'requires: ["numpy>=1.26"]' in text
    course_file.write_text(text.replace('requires: ["numpy>=1.26"]', f"requires: {requires}"), encoding="utf-8")
    return course


def python(code: str, cwd: Path, extra_path: list[Path] = ()) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*(str(p) for p in extra_path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_requirement_names_and_the_modules_the_worker_preloads():
    assert course_requires.preload_modules([]) == []
    assert course_requires.preload_modules(["numpy>=1.26"]) == ["numpy"]
    assert course_requires.preload_modules(["scikit-learn>=1.4", "PyYAML"]) == ["sklearn", "yaml"]
    preloaded = course_requires.preload_modules(["torch>=2.2"])
    assert preloaded[0] == "torch" and "torch.nn.functional" in preloaded
    assert course_requires.uses(["Torch >= 2.2"], "torch") and not course_requires.uses(["torchvision"], "torch")


def test_a_course_s_requirements_are_read_from_its_course_yaml(tmp_path):
    assert course_requires.course_requirements(NUMERICS) == ["numpy>=1.26"]
    course = requiring(copy_numerics(tmp_path / "numerics"), '["torch>=2.2", "scipy"]')
    assert course_requires.course_requirements(course) == ["torch>=2.2", "scipy"]


def test_a_requirement_pip_cannot_read_is_a_located_error(tmp_path):
    course = requiring(copy_numerics(tmp_path / "numerics"), '["numpy>=>1.26"]')
    course_file = course / "content" / "course.yaml"
    line = next(i for i, row in enumerate(course_file.read_text().splitlines(), 1) if row.startswith("requires:"))
    done = subprocess.run(
        [sys.executable, "-m", "coursegen", "check"], cwd=course, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"content/course.yaml:{line}:"), done.stderr
    assert "not a pip requirement (e.g. 'torch>=2.2' or 'numpy')" in done.stderr


@pytest.mark.parametrize(("requires", "has_torch"), [('["numpy>=1.26"]', False), ('["torch>=2.2"]', True)])
def test_the_warm_worker_preloads_torch_only_for_a_course_that_requires_it(tmp_path, requires, has_torch):
    root = requiring(copy_numerics(tmp_path / "numerics"), requires)
    done = python(
        f"""
        import sys
        from grader.course import Course
        from grader.sandbox import Sandbox
        with Sandbox(course=Course.load({str(root)!r})) as sandbox, sandbox.load("import sys\\ndef loaded():\\n    return 'torch' in sys.modules\\n") as c:
            print("child", c.loaded())
        print("parent", "torch" in sys.modules)
        """,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert f"child {has_torch}" in done.stdout
    assert "parent False" in done.stdout  # the grader imports torch only when the course's code does


def test_the_lazy_torch_is_a_type_nothing_is_an_instance_of_until_torch_is_needed(tmp_path):
    blocker = tmp_path / "blocked"
    (blocker / "torch").mkdir(parents=True)
    (blocker / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
    done = python(
        """
        from grader.lazy_torch import torch
        import numpy as np
        print(isinstance(np.zeros(2), torch.Tensor), isinstance(1.0, torch.nn.Module))
        try:
            torch.zeros(2)
        except ImportError as exc:
            print("error:", exc)
        """,
        cwd=tmp_path,
        extra_path=[blocker],
    )
    assert done.returncode == 0, done.stderr
    assert "False False" in done.stdout
    assert "torch.zeros is needed, and torch is not installed" in done.stdout and "requires:" in done.stdout
