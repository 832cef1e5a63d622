"""A small torch-free course for the term tests: tests/courses/numerics (a function-taking exercise,
`trapezoid`, and a numpy-array one, `cumulative_trapezoid`, in two lessons) copied with one
assignment, `hw1`, that spans both lessons, and the student files a term produces."""

from __future__ import annotations

import shutil
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
NUMERICS = TESTS / "courses" / "numerics"
ASSIGNMENT = "hw1"
LESSONS = ("quadrature", "running")

ASSIGNMENTS_YAML = """\
assignments:
  - id: hw1
    title: {en: Homework 1, zh: 作业 1}
    lessons: [quadrature, running]
"""

WRONG_RUNNING = '''\
import numpy as np


def cumulative_trapezoid(y, h):
    """Rectangles, not trapezoids: a wrong answer on every input."""
    y = np.asarray(y, dtype=np.float64)
    return np.concatenate(([0.0], np.cumsum(h * y[:-1])))
'''


def make_term_course(dest: Path, extra_yaml: str = "") -> Path:
    """A copy of the numerics course with assignment hw1 (and `extra_yaml` appended to course.yaml)."""
    shutil.copytree(NUMERICS, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".coursegen-cache"))
    course = dest / "content" / "course.yaml"
    course.write_text(course.read_text(encoding="utf-8") + ASSIGNMENTS_YAML + extra_yaml, encoding="utf-8")
    return dest


def solution_notebooks(root: Path) -> dict[str, bytes]:
    """lesson -> its solution notebook (English), as the build renders it."""
    from coursegen.loader import load_course
    from coursegen.notebooks import notebook_relpath, render_notebooks

    outputs = render_notebooks(load_course(root), students=True, solutions=True, lessons=list(LESSONS))
    return {lesson: outputs[notebook_relpath(lesson, "en", solution=True)] for lesson in LESSONS}


def solution_module(root: Path, module: str) -> str:
    return (root / "solutions" / f"{module}.py").read_text(encoding="utf-8")


def student_files(root: Path) -> dict[str, dict[str, bytes]]:
    """student -> {file name: bytes}: the cases the must-show of issue 34 names, one of them
    with a wrong exercise so that the scores are not all full or all zero."""
    notebooks = solution_notebooks(root)
    quadrature, running = solution_module(root, "quadrature"), solution_module(root, "running")
    combined = quadrature + "\n\n" + running.replace("from __future__ import annotations\n", "")
    return {
        "two_notebooks": {f"{lesson}.ipynb": data for lesson, data in notebooks.items()},
        "two_modules": {"quadrature.py": quadrature.encode(), "running.py": WRONG_RUNNING.encode()},
        "one_module": {"homework.py": combined.encode()},
        "nothing": {},
    }


def write_student_folders(batch: Path, files: dict[str, dict[str, bytes]]) -> Path:
    for student, mine in files.items():
        folder = batch / student
        folder.mkdir(parents=True)
        for name, data in mine.items():
            (folder / name).write_bytes(data)
    return batch


def grade_locally(root: Path, batch: Path, out: Path, *extra: str) -> dict[str, dict]:
    """`coursegen grade BATCH --assignment hw1` (the real command, in a child) -> student -> result."""
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "grade", str(batch), "--assignment", ASSIGNMENT, "--root", str(root),
         "--format", "json", "-o", str(out / "grades.json"), "--gradebook", str(out / "gb.sqlite"), *extra],
        capture_output=True, text=True, env=env, cwd=out, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    results = results if isinstance(results, list) else [results]
    return {r["student"]: r for r in results}
