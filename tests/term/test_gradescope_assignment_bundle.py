"""Issue 34, item 1: the Gradescope bundle of an assignment that spans two lessons grades every
.py and .ipynb a student uploads, as `coursegen grade --assignment` grades the same files in a
student folder; with nothing usable it names what the assignment expects; nothing in it calls
the assignment a lesson."""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from tests.export.deployed import deploy_gradescope, run_autograder

from .course import ASSIGNMENT, grade_locally, make_term_course, student_files, write_student_folders


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    return make_term_course(tmp_path_factory.mktemp("term") / "numerics")


@pytest.fixture(scope="module")
def bundle(course, tmp_path_factory):
    from coursegen.exports.gradescope import export_gradescope

    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    export_gradescope(course, None, out, assignment_id=ASSIGNMENT)
    return out


def test_the_bundle_names_the_assignment_and_what_it_expects(bundle):
    with zipfile.ZipFile(bundle) as archive:
        assignment = json.loads(archive.read("assignment.json"))
        scripts = {name: archive.read(name).decode() for name in ("setup.sh", "run_autograder")}
        pyproject = archive.read("package/pyproject.toml").decode()
    assert assignment["assignment"] == ASSIGNMENT
    assert assignment["exercises"] == ["trapezoid", "cumulative_trapezoid"]
    assert assignment["expects"] == {
        "notebooks": ["quadrature.ipynb", "running.ipynb"],
        "modules": ["quadrature.py", "running.py"],
    }
    for text in [json.dumps(assignment), pyproject, *scripts.values()]:
        assert "lesson" not in text.lower().replace("lessons' notebooks", ""), text[:400]
    assert all(re.search(rf'assignment\s*#?\s*"{ASSIGNMENT}"', text) for text in scripts.values())


@pytest.mark.slow
def test_the_deployed_bundle_scores_as_grade_assignment(course, bundle, tmp_path):
    files = student_files(course)
    local = grade_locally(course, write_student_folders(tmp_path / "batch", files), tmp_path)
    deployment = deploy_gradescope(bundle, tmp_path / "deployed", torch=False)
    seen = {}
    for student, mine in files.items():
        root = deployment.autograder_root(tmp_path / "runs" / student)
        for name, data in mine.items():
            (root / "submission" / name).write_bytes(data)
        done, results = run_autograder(deployment, root)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        seen[student] = results
        assert results["score"] == pytest.approx(local[student]["score"]), (student, results, local[student])
        assert results["extra_data"]["max_score"] == pytest.approx(local[student]["max_score"]) == 7.0
    assert seen["two_notebooks"]["score"] == seen["one_module"]["score"] == 7.0
    assert 0 < seen["two_modules"]["score"] < 7.0  # the wrong cumulative_trapezoid costs its points
    assert seen["nothing"]["score"] == 0
    message = seen["nothing"]["output"]
    assert "quadrature.ipynb" in message and "running.ipynb" in message and ASSIGNMENT in message
    assert "quadrature.ipynb, running.ipynb" in seen["two_notebooks"]["output"]  # the files it graded
