"""Issue 34, item 1 (Classroom): the starter repository of an assignment that spans two lessons
holds both lessons' notebooks, and its workflow, run as GitHub runs it (its `run:` steps, in a
fresh venv with only what the package declares, in a git checkout; the steps before grading, which
install the package, run once, in a checkout of the starter repository), grades every .py and .ipynb
the student commits as `coursegen grade --assignment` grades the same files in a student folder:
every public check scores what it scores there. Nothing in the repository calls the assignment
a lesson."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from coursegen.exports import classroom
from tests.export.deployed import new_classroom_runner, split_at_grading, workflow_steps

from .course import ASSIGNMENT, grade_locally, make_term_course, student_files, write_student_folders

pytestmark = pytest.mark.slow  # the export grades each lesson's solution notebook to record its answers (~10 s)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return make_term_course(tmp_path_factory.mktemp("term") / "numerics")


@pytest.fixture(scope="module")
def tree(course, tmp_path_factory):
    out = tmp_path_factory.mktemp("classroom") / "starter"
    classroom.export_classroom(course, None, out, assignment_id=ASSIGNMENT)
    return out


@pytest.fixture(scope="module")
def installed_runner(tree, tmp_path_factory):
    """The job up to its grading step, run once: setup-python (a fresh venv) and the workflow's own
    install commands, in a checkout of the starter repository."""
    base = tmp_path_factory.mktemp("classroom-runner")
    repo = base / "checkout"
    shutil.copytree(tree, repo)
    runner = new_classroom_runner(base)
    ran = runner.run_steps(
        repo, split_at_grading(workflow_steps(repo / classroom.WORKFLOW_PATH))[0], base / "summary.md"
    )
    assert ran, "the workflow has no install step before grading"
    for step, done in ran:
        assert done.returncode == 0, f"{step.name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return runner


def test_the_repository_holds_the_assignments_notebooks_and_names_the_assignment(tree):
    assert (tree / "quadrature.ipynb").is_file() and (tree / "running.ipynb").is_file()
    shipped = json.loads((tree / ".autograder" / "exercises" / "assignments.json").read_text(encoding="utf-8"))
    assert list(shipped) == [ASSIGNMENT]
    assert [name for name, _ in shipped[ASSIGNMENT]["exercises"]] == ["trapezoid", "cumulative_trapezoid"]
    texts = {
        path.relative_to(tree).as_posix(): path.read_text(encoding="utf-8")
        for path in [
            tree / "README.md",
            tree / classroom.WORKFLOW_PATH,
            tree / ".gitignore",
            tree / ".autograder" / "README.md",
            tree / ".autograder" / "pyproject.toml",
            tree / ".autograder" / "coursegen_feedback" / "__init__.py",
        ]
    }
    for name, text in texts.items():
        assert "lesson" not in text.lower() and "本课" not in text, name
        assert ASSIGNMENT in text or name == ".gitignore", name
    grade = next(step for step in workflow_steps(tree / classroom.WORKFLOW_PATH) if step.id == "grade")
    assert f"--assignment {ASSIGNMENT}" in (grade.run or "")


def test_the_workflow_scores_every_public_check_as_grade_assignment(course, tree, installed_runner, tmp_path):
    files = student_files(course)
    local = grade_locally(course, write_student_folders(tmp_path / "batch", files), tmp_path)
    _, steps = split_at_grading(workflow_steps(tree / classroom.WORKFLOW_PATH))
    public = {(t["exercise"], t["name"]) for r in local.values() for t in r["tests"] if not t["hidden"]}
    assert public, local
    compared = 0
    for student, mine in files.items():
        repo = tmp_path / "repos" / student
        shutil.copytree(tree, repo)
        for lesson in ("quadrature", "running"):  # the student's own work replaces the starter notebooks
            (repo / f"{lesson}.ipynb").unlink()
        for name, data in mine.items():
            (repo / "work" / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / "work" / name).write_bytes(data)  # in a sub-folder: every committed file counts
        for command in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=s", "-c", "user.email=s@x", "commit", "-qm", "hw"],
        ):
            subprocess.run(["git", *command], cwd=repo, check=True, capture_output=True)
        ran = installed_runner.run_steps(repo, steps, tmp_path / f"{student}-summary.md")
        for step, done in ran:
            assert done.returncode == 0, f"{student}: {step.name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        [feedback] = json.loads((repo / classroom.RESULT_FILE).read_text(encoding="utf-8"))
        expected = {(t["exercise"], t["name"]): t for t in local[student]["tests"]}
        shown = {(t["exercise"], t["name"]): t for t in feedback["tests"]}
        assert set(shown) == public, (student, sorted(shown))
        for key, test in shown.items():
            want = expected[key]
            assert (test["status"], test["score"], test["max_score"]) == (
                want["status"],
                want["score"],
                want["max_score"],
            ), (student, key, test, want)
            compared += 1
        public_total = sum(expected[key]["score"] for key in public)
        assert feedback["score"] == pytest.approx(public_total), (student, feedback["score"], public_total)
    assert compared == len(public) * len(files)
    assert local["two_notebooks"]["score"] == local["one_module"]["score"] == 7.0
    assert 0 < local["two_modules"]["score"] < 7.0 and local["nothing"]["score"] == 0
