"""A course without torch, tests/courses/numerics (numerical methods): an exercise that takes a
function, `trapezoid(f, a, b, n)`, and one on numpy arrays, `cumulative_trapezoid(y, h)`. Checked,
verified, built, graded and exported with the commands an instructor types, from a copy of the
course, with torch made unimportable in every command (a `torch` package on PYTHONPATH that
raises ImportError): nothing the course does needs it.

Expected values come from outside the code under test: the maximum from the checks' `points` marks
(read with ast), correct submissions written here apart from the references, a mistaken one as a
student would write it, hostile ones that abuse the function they are given."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from tests.nonempty import nonempty

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "tests" / "courses" / "numerics"
COURSEGEN = Path(sys.executable).parent / "coursegen"  # the installed command
HINT = "You counted f(a) and f(b) fully"

CORRECT_QUADRATURE = """
def trapezoid(f, a, b, n):
    width = (b - a) / n
    total = 0.0
    for i in range(n):                       # one trapezoid per piece
        left, right = a + i * width, a + (i + 1) * width
        total += width * (f(left) + f(right)) / 2
    return total
"""
CORRECT_RUNNING = """
import numpy as np

def cumulative_trapezoid(y, h):
    out = np.zeros(len(y))
    for i in range(1, len(y)):
        out[i] = out[i - 1] + h * (y[i - 1] + y[i]) / 2
    return out
"""
MISTAKEN_QUADRATURE = """
def trapezoid(f, a, b, n):
    h = (b - a) / n
    return h * sum(f(a + i * h) for i in range(n + 1))   # both ends counted fully
"""
HOSTILE_QUADRATURE = """
import gc

def trapezoid(f, a, b, n):
    f.__code__ = (lambda x: 1.0).__code__       # the child's copy of f only
    for obj in gc.get_objects():                # nothing of the grader is here to find
        if type(obj).__name__ in ("Candidate", "TrustedCandidate", "GraderState"):
            return 1e9
    return f(a) * (b - a)
"""
SPINNING_QUADRATURE = """
def trapezoid(f, a, b, n):
    total = 0.0
    while True:                                 # calls f forever: the student's own time limit
        total += f(a)
"""


def torch_blocker(folder: Path) -> Path:
    (folder / "torch").mkdir(parents=True)
    (folder / "torch" / "__init__.py").write_text("raise ImportError('no torch in this course')\n")
    return folder


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    blocker = torch_blocker(tmp_path_factory.mktemp("blocker"))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(p for p in (str(blocker), environment.get("PYTHONPATH")) if p)
    return environment


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("numerics") / "numerics"
    shutil.copytree(COURSE, dest, ignore=shutil.ignore_patterns("_site", ".coursegen-cache", "__pycache__"))
    return dest


def coursegen(env: dict, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(COURSEGEN), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def points(root: Path) -> dict[str, int]:
    found = {}
    for path in sorted((root / "grader" / "checks").glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found[node.name] = next(
                    (d.args[0].value for d in node.decorator_list if ast.unparse(d).startswith("pytest.mark.points(")),
                    1,
                )
    return found


def test_the_course_imports_no_torch_anywhere():
    for path in nonempty(COURSE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not [n for n in names if n.split(".")[0] == "torch"], path


def test_check_and_verify_pass_without_torch(course, env):
    done = coursegen(env, "check", cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    done = coursegen(env, "verify", cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    table = done.stdout
    assert "mistake trapezoid-full-ends      ok      caught by test_trapezoid_of_a_cubic with its hint" in table
    assert "mistake running-left-rectangles  ok" in table
    # per module: reference, stub, its mistakes, signatures, that no hint names another mistake, and
    # that no odd student value (10**400, None, a complex or NaN-filled answer, ...) breaks a check
    assert "hints" in table and "12 of 12 verified" in table
    assert re.search(r"^quadrature\s+values\s+ok\s+\d+ odd values x \d+ checks", table, re.MULTILINE), table


def test_build_writes_notebooks_that_never_mention_torch(course, env):
    done = coursegen(env, "build", "--quiet", cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    notebooks = sorted((course / "_site" / "notebooks").rglob("*.ipynb"))
    assert len(notebooks) == 4  # 2 lessons x 2 languages
    for notebook in notebooks:
        text = notebook.read_text(encoding="utf-8")
        assert "torch" not in text, notebook
        cells = json.loads(text)["cells"]
        setup = next(
            "".join(c["source"]) for c in cells if c.get("metadata", {}).get("coursegen", {}).get("role") == "setup"
        )
        assert "numpy" in setup
    page = (course / "_site" / "en" / "exercises.html").read_text(encoding="utf-8")
    assert "coursegen grade" not in page and "the course's assignment page" in page


def test_grade_gives_full_marks_the_hint_and_contains_hostile_f_callers(course, env, tmp_path):
    maximum = sum(points(course).values())
    assert maximum == 7
    batch = tmp_path / "batch"
    students = {
        "alice": {"quadrature.py": CORRECT_QUADRATURE, "running.py": CORRECT_RUNNING},
        "bob": {"quadrature.py": MISTAKEN_QUADRATURE, "running.py": CORRECT_RUNNING},
        "mallory": {"quadrature.py": HOSTILE_QUADRATURE, "running.py": CORRECT_RUNNING},
        "spinner": {"quadrature.py": SPINNING_QUADRATURE, "running.py": CORRECT_RUNNING},
    }
    for student, files in students.items():
        (batch / student).mkdir(parents=True)
        for name, code in files.items():
            (batch / student / name).write_text(code, encoding="utf-8")
    done = coursegen(env, "grade", str(batch), "--seed", "5", "--format", "json", cwd=course)
    assert done.returncode == 0, done.stderr
    scores: dict[str, list[int]] = {}
    tests: dict[str, list[dict]] = {}
    for result in json.loads(done.stdout):
        scores.setdefault(result["student"], [0, 0])
        scores[result["student"]][0] += result["score"]
        scores[result["student"]][1] += result["max_score"]
        tests.setdefault(result["student"], []).extend(result["tests"])
    assert scores["alice"] == [maximum, maximum]
    # bob, mallory and the spinner lose every trapezoid check, and keep the running integral's 3 points
    for student in ("bob", "mallory", "spinner"):
        assert scores[student] == [3, maximum], (student, tests[student])
    cubic = next(t for t in tests["bob"] if t["name"].endswith("test_trapezoid_of_a_cubic"))
    assert HINT in cubic["output"] and "trapezoid-full-ends" in cubic["mistakes"]
    spun = next(t for t in tests["spinner"] if t["name"].endswith("test_trapezoid_of_a_cubic"))
    assert "ran longer than" in spun["output"] or "CPU" in spun["output"], spun


def test_export_gradescope_installs_numpy_and_no_torch(course, env, tmp_path):
    target = tmp_path / "autograder.zip"
    done = coursegen(env, "export", "gradescope", "--lesson", "quadrature", "-o", str(target), cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(target) as archive:
        setup = archive.read("setup.sh").decode()
        pyproject = archive.read("package/pyproject.toml").decode()
        requires = json.loads(archive.read("package/exercises/requires.json"))
    assert "torch" not in setup and "torch" not in pyproject
    assert "'numpy>=1.26'" in pyproject and requires == ["numpy>=1.26"]


def test_the_student_guide_follows_the_course(course, env):
    done = coursegen(env, "guide", cwd=course)
    assert done.returncode == 0, done.stderr
    guide = done.stdout
    assert 'python -m pip install notebook "numpy>=1.26"' in guide
    assert "`quadrature.ipynb`: The trapezoid rule (`trapezoid`)" in guide
    assert "the course's assignment page" in guide and "课程的作业页面" in guide
    assert "torch" not in guide and "coursegen" not in guide


def test_verify_refuses_a_check_that_passes_what_cannot_cross_and_says_where(env, tmp_path):
    course = tmp_path / "numerics"
    shutil.copytree(COURSE, course, ignore=shutil.ignore_patterns("_site", ".coursegen-cache", "__pycache__"))
    checks = course / "grader" / "checks" / "test_quadrature.py"
    checks.write_text(
        checks.read_text(encoding="utf-8")
        + """

class Table:
    def value(self, x):
        return x


@pytest.mark.exercise("trapezoid")
def test_trapezoid_of_a_method(candidate, reference):
    expect_call(candidate, reference, "trapezoid", Table().value, 0.0, 1.0, 4)
""",
        encoding="utf-8",
    )
    line = (
        checks.read_text(encoding="utf-8")
        .splitlines()
        .index('    expect_call(candidate, reference, "trapezoid", Table().value, 0.0, 1.0, 4)')
        + 1
    )
    done = coursegen(env, "verify", cwd=course)
    assert done.returncode == 1
    output = done.stdout + done.stderr
    assert (
        f"argument 1 of trapezoid (test_quadrature.py:{line}): the bound method Table.value carries its object"
        in output
    )
    assert "What can cross to student code" in output and "Instead: pass a lambda" in output


def test_the_solution_notebooks_pass_their_self_checks_and_grade_full(course, env, tmp_path):
    import nbformat
    from nbclient import NotebookClient

    out = tmp_path / "notebooks"
    done = coursegen(env, "notebooks", "--solutions", "-o", str(out), cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    for lesson, exercise in (("quadrature", "trapezoid"), ("running", "cumulative_trapezoid")):
        notebook = nbformat.read(out / "en" / f"{lesson}-solution.ipynb", as_version=4)
        NotebookClient(notebook, timeout=120, kernel_name="python3").execute()  # raises on an error
        printed = "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
        assert f"[PASS] {exercise}:" in printed and "[FAIL]" not in printed, printed
        submission = tmp_path / "hand-in" / lesson / f"{lesson}.ipynb"
        submission.parent.mkdir(parents=True)
        submission.write_bytes((out / "en" / f"{lesson}-solution.ipynb").read_bytes())
        done = coursegen(env, "grade", str(submission), "--format", "json", cwd=course)
        report = json.loads(done.stdout)
        assert report["score"] == report["max_score"] > 0, report


def test_export_classroom_precomputes_checks_that_pass_functions_and_installs_no_torch(course, env, tmp_path):
    done = coursegen(env, "export", "classroom", "--lesson", "quadrature", "-o", str(tmp_path / "starter"), cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 public checks with precomputed values" in done.stderr + done.stdout
    workflow = (tmp_path / "starter" / ".github" / "workflows" / "classroom.yml").read_text(encoding="utf-8")
    readme = (tmp_path / "starter" / "README.md").read_text(encoding="utf-8")
    assert "torch" not in workflow and "torch" not in readme
