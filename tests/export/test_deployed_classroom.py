"""The Classroom starter repository tested as deployed: its workflow file is parsed and its
`run:` steps run in order, as GitHub's runner runs them, in a FRESH virtual environment
standing for actions/setup-python (so `pip install ./.autograder` brings exactly what the
package declares), on a correct notebook, the stub notebook and a catalogued mistake.
See deployed.py for the departures from GitHub's machine, each with its reason."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from coursegen.exports import classroom

from .deployed import (
    ClassroomRunner,
    clean_env,
    installed_distributions,
    is_fresh_venv,
    new_classroom_runner,
    run,
    split_at_grading,
    undeclared_imports,
    workflow_steps,
)
from .helpers import LESSON_ID, with_exercise_cell
from tests.nonempty import nonempty

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def installed_runner(classroom_tree, tmp_path_factory) -> ClassroomRunner:
    """The job up to the grading step, run once: checkout (a copy), setup-python (a fresh venv),
    and the workflow's own install commands."""
    base = tmp_path_factory.mktemp("classroom-deployed")
    repo = base / "checkout"
    shutil.copytree(classroom_tree, repo)
    runner = new_classroom_runner(base)
    prepare, _ = split_at_grading(workflow_steps(repo / classroom.WORKFLOW_PATH))
    ran = runner.run_steps(repo, prepare, base / "summary.md")
    assert ran, "the workflow has no install step before grading"
    for step, done in ran:
        assert done.returncode == 0, f"step {step.name!r} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return runner


@pytest.fixture
def push(classroom_tree, installed_runner, tmp_path):
    """Push `notebook` to a copy of the starter repository: run the workflow's grading steps."""

    def run_push(notebook: bytes) -> dict:
        repo = tmp_path / "repo"
        shutil.copytree(classroom_tree, repo)
        (repo / f"{LESSON_ID}.ipynb").write_bytes(notebook)
        summary = tmp_path / "step-summary.md"
        _, grading = split_at_grading(workflow_steps(repo / classroom.WORKFLOW_PATH))
        ran = installed_runner.run_steps(repo, grading, summary)
        for step, done in ran:
            assert done.returncode == 0, f"step {step.name!r} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return {
            "result": json.loads((repo / classroom.RESULT_FILE).read_text(encoding="utf-8")),
            "junit": ET.parse(repo / classroom.JUNIT_FILE).getroot(),
            "markdown": (repo / classroom.MARKDOWN_FILE).read_text(encoding="utf-8"),
            "summary": summary.read_text(encoding="utf-8") if summary.exists() else "",
        }

    return run_push


def junit_counts(root: ET.Element) -> tuple[int, int]:
    cases = root.findall(".//testcase")
    return len(cases), sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)


def test_the_workflow_installs_into_a_fresh_venv_exactly_what_the_package_declares(installed_runner):
    assert is_fresh_venv(installed_runner.venv)
    installed = installed_distributions(installed_runner.venv / "bin" / "python", clean_env())
    assert installed["torch"].startswith("2.13.0")
    assert "numpy" not in installed and "coursegen" not in installed
    assert any(name.startswith("coursegen-grader-") for name in installed)


def test_every_module_the_feedback_package_imports_is_a_declared_dependency(classroom_tree):
    # Classroom leaves solutions/ out: the grader imports it only inside the reference code
    # paths, which replay mode never runs
    assert undeclared_imports(classroom_tree / ".autograder", {"coursegen", "solutions"}) == {}


def test_the_installed_feedback_grader_cannot_import_solutions(installed_runner, tmp_path):
    python = str(installed_runner.venv / "bin" / "python")
    done = run([python, "-c", "import solutions"], cwd=tmp_path, env=clean_env())
    assert done.returncode != 0 and "No module named 'solutions'" in done.stderr
    done = run(
        [
            python,
            "-c",
            "import grader.running.pytest_plugin, grader.replay, grader.scaleout.batch, exercises.registry, coursegen_feedback",
        ],
        cwd=tmp_path,
        env=clean_env(),
    )
    assert done.returncode == 0, done.stderr


def test_a_correct_notebook_passes_every_public_check(push, lesson_notebooks):
    out = push(lesson_notebooks["solution"])
    assert out["result"]["score"] == out["result"]["max_score"] > 0
    cases, failed = junit_counts(out["junit"])
    assert cases == len(out["result"]["tests"]) > 0 and failed == 0
    assert out["markdown"].strip() and out["markdown"] in out["summary"]  # the summary step appended it


def test_the_stub_notebook_fails_every_public_check(push, lesson_notebooks):
    out = push(lesson_notebooks["student"])
    assert out["result"]["score"] == 0 and out["result"]["max_score"] > 0
    cases, failed = junit_counts(out["junit"])
    assert cases > 0 and failed == cases


def test_a_catalogued_mistake_fails_its_checks_without_revealing_its_hint(push, lesson_notebooks):
    from tests.first_course import catalogue

    wrong = next(m for m in catalogue("lm_head") if m.id == "tied-copied-weight")
    out = push(with_exercise_cell(lesson_notebooks["solution"], "TiedLM", wrong.source))
    failed = [t for t in out["result"]["tests"] if t["status"] != "passed"]
    assert failed and all(t["exercise"] == "TiedLM" for t in failed)
    assert 0 < out["result"]["score"] < out["result"]["max_score"]
    assert wrong.hint["en"] not in out["markdown"] + json.dumps(out["result"], ensure_ascii=False)


def test_the_workflow_steps_this_test_skips_are_only_actions_and_host_changes(classroom_tree):
    from .deployed import step_script_for_this_machine

    skipped = [
        s
        for s in workflow_steps(classroom_tree / classroom.WORKFLOW_PATH)
        if s.run is None or step_script_for_this_machine(s.run) is None
    ]
    assert all(s.uses or s.run.lstrip().startswith("sudo ") for s in nonempty(skipped))
    assert {s.uses.split("@")[0] for s in skipped if s.uses} <= {
        "actions/checkout",
        "actions/setup-python",
        "mikepenz/action-junit-report",
        "actions/upload-artifact",
    }


def test_a_notebook_path_in_the_workflow_is_the_shipped_notebook(classroom_tree):
    grading = next(s for s in workflow_steps(classroom_tree / classroom.WORKFLOW_PATH) if s.id == "grade")
    assert f"coursegen grade {LESSON_ID}.ipynb" in grading.run
    assert (Path(classroom_tree) / f"{LESSON_ID}.ipynb").is_file()


def test_the_commands_the_student_readme_shows_run_and_give_the_workflows_result(
    classroom_tree, installed_runner, lesson_notebooks, tmp_path
):
    """The README's "run the checks on your own computer" block, run as a student would (in the
    same fresh venv), with the departures of deployed.py (the local torch wheel)."""
    import re

    from .deployed import step_script_for_this_machine

    repo = tmp_path / "repo"
    shutil.copytree(classroom_tree, repo)
    (repo / f"{LESSON_ID}.ipynb").write_bytes(lesson_notebooks["solution"])
    readme = (repo / "README.md").read_text(encoding="utf-8")
    blocks = list(dict.fromkeys(re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M)))
    assert len(blocks) == 1, "the English and Chinese sections show the same commands"
    script = step_script_for_this_machine(blocks[0])
    done = run(["bash", "-eo", "pipefail", "-c", script], cwd=repo, env=installed_runner.env(tmp_path / "summary.md"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads((repo / classroom.RESULT_FILE).read_text(encoding="utf-8"))
    assert result["score"] == result["max_score"] > 0
    assert (repo / classroom.JUNIT_FILE).is_file() and (repo / classroom.MARKDOWN_FILE).is_file()
