"""The Gradescope zip tested as deployed: its own setup.sh installs it into a FRESH virtual
environment (nothing of the development environment: no numpy, no tqdm unless declared), then
its run_autograder grades submissions in folders laid out like Gradescope's /autograder, and
every results.json is validated against the format Gradescope documents
(gradescope_results.schema.json, written from the documentation). See deployed.py for the
few departures from Gradescope's machine, each with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from .deployed import (
    clean_env,
    deploy_gradescope,
    installed_distributions,
    is_fresh_venv,
    run,
    run_autograder,
    undeclared_imports,
)
from .helpers import LESSON_EXERCISES, LESSON_ID, with_exercise_cell

pytestmark = pytest.mark.slow

SCHEMA = json.loads((Path(__file__).with_name("gradescope_results.schema.json")).read_text(encoding="utf-8"))
LESSON_MODULES = ("tokens", "embedding", "lm_head")  # the modules of LESSON_EXERCISES


@pytest.fixture(scope="session")
def deployment(gradescope_zip, tmp_path_factory):
    """The image Gradescope would build from the zip: built once per session (about a minute)."""
    return deploy_gradescope(gradescope_zip, tmp_path_factory.mktemp("gradescope-deployed"))


def assert_documented_results(results: dict) -> None:
    """Gradescope's documented format, plus the arithmetic a grade must satisfy."""
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    for test in results.get("tests", []):
        assert 0 <= test["score"] <= test["max_score"], test
        assert (test["status"] == "passed") == (test["score"] == test["max_score"]), test
    assert results["score"] == pytest.approx(sum(t["score"] for t in results.get("tests", [])))


def grade(deployment, tmp_path: Path, name: str, data: bytes) -> tuple[dict, str]:
    root = deployment.autograder_root(tmp_path / "autograder")
    (root / "submission" / name).write_bytes(data)
    done, results = run_autograder(deployment, root)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert_documented_results(results)
    return results, done.stdout


def max_score(results: dict) -> float:
    return sum(t["max_score"] for t in results["tests"])


def solution_module_source(course_root: Path) -> str:
    """A correct .py written from the course's reference modules (not from the notebook the
    export renders), renamed as an LMS would rename it."""
    parts = ["from __future__ import annotations\n"]
    for module in LESSON_MODULES:
        text = (course_root / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        parts.append(text.replace("from __future__ import annotations\n", ""))
    return "\n\n".join(parts)


# ---- the environment is clean, and holds what the bundle declares -----------------------------


def test_setup_sh_makes_a_fresh_venv_without_numpy(deployment):
    assert is_fresh_venv(deployment.venv)
    installed = installed_distributions(deployment.python, clean_env())
    assert "numpy" not in installed  # so a `.numpy()` anywhere in grading would fail here
    assert installed["torch"].startswith("2.13.0")
    assert "coursegen" not in installed and "nbformat" not in installed


def test_every_module_the_package_imports_is_a_declared_dependency(deployment):
    # `coursegen` is the build engine, imported by coursegen_cli (coursegen/cli.py and
    # coursegen/commands/) only inside the building commands
    assert undeclared_imports(deployment.image / "source" / "package", {"coursegen"}) == {}


def test_every_shipped_module_imports_in_the_clean_venv(deployment):
    code = (
        "import importlib, pkgutil, sys\n"
        "import coursegen_cli, grader, exercises, solutions\n"
        "bad = []\n"
        "for package in (coursegen_cli, grader, exercises, solutions):\n"
        "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "        try:\n"
        "            importlib.import_module(info.name)\n"
        "        except Exception as exc:\n"
        "            bad.append(f'{info.name}: {exc!r}')\n"
        "print('\\n'.join(bad)); sys.exit(1 if bad else 0)\n"
    )
    done = run([str(deployment.python), "-c", code], cwd=deployment.venv, env=clean_env())
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


# ---- grading, as Gradescope runs it ------------------------------------------------------------


def test_a_correct_notebook_gets_full_marks(deployment, lesson_notebooks, tmp_path):
    results, _ = grade(deployment, tmp_path, f"{LESSON_ID}.ipynb", lesson_notebooks["solution"])
    assert results["score"] == max_score(results) > 0
    assert all(t["status"] == "passed" for t in results["tests"])
    assert {t["name"].split(":")[0] for t in results["tests"]} == set(LESSON_EXERCISES)
    assert results["extra_data"]["max_score"] == max_score(results)


def test_a_correct_py_file_renamed_by_the_lms_gets_full_marks(deployment, course_root, tmp_path):
    results, _ = grade(
        deployment, tmp_path, "smith_4711_export_lesson-2.py", solution_module_source(course_root).encode()
    )
    assert results["score"] == max_score(results) > 0, [t for t in results["tests"] if t["status"] != "passed"]


def test_the_student_notebook_with_its_stubs_scores_zero(deployment, lesson_notebooks, tmp_path):
    results, _ = grade(deployment, tmp_path, f"{LESSON_ID}.ipynb", lesson_notebooks["student"])
    assert results["score"] == 0 and max_score(results) > 0
    assert all(t["status"] == "failed" for t in results["tests"])


def test_a_catalogued_mistake_loses_its_checks_and_shows_its_hint(deployment, lesson_notebooks, tmp_path):
    from tests.first_course import catalogue

    wrong = next(m for m in catalogue("embedding") if m.id == "backward-overwrites-repeats")
    notebook = with_exercise_cell(lesson_notebooks["solution"], "embedding_backward", wrong.source)
    results, _ = grade(deployment, tmp_path, f"{LESSON_ID}.ipynb", notebook)
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert failed and all(t["name"].startswith("embedding_backward:") for t in failed)
    assert 0 < results["score"] < max_score(results)
    assert any(wrong.hint["en"] in t["output"] for t in failed if t["visibility"] == "visible")


def test_a_notebook_that_is_not_json_scores_zero_with_a_documented_results_file(deployment, tmp_path):
    results, _ = grade(deployment, tmp_path, f"{LESSON_ID}.ipynb", b"{ this is not json")
    assert results["score"] == 0 and results["output"]
    assert max_score(results) > 0  # the lesson's maximum, not 0/0


@pytest.mark.parametrize("kind", ["reference_file", "correct_notebook", "linked_folder"])
def test_a_link_in_the_submission_is_never_followed(deployment, lesson_notebooks, tmp_path, kind):
    """A link to the references in /autograder/source (or to a correct notebook elsewhere) would
    be graded as the student's code, with full marks: it is refused, and a linked folder is not entered."""
    root = deployment.autograder_root(tmp_path / "autograder")
    submission = root / "submission"
    references = next((root / "source").rglob("solutions/tokens.py"))
    if kind == "reference_file":
        (submission / "tokens.py").symlink_to(references)
    elif kind == "correct_notebook":
        elsewhere = tmp_path / "elsewhere.ipynb"
        elsewhere.write_bytes(lesson_notebooks["solution"])
        (submission / f"{LESSON_ID}.ipynb").symlink_to(elsewhere)
    else:
        (submission / "work").symlink_to(references.parent)
    done, results = run_autograder(deployment, root)
    assert done.returncode == 0, done.stdout[-2000:]
    assert_documented_results(results)
    assert results["score"] == 0
    if kind == "linked_folder":
        assert results["tests"] == []  # nothing found: the folder was not entered
    else:
        assert "symbolic link" in results["output"] and max_score(results) > 0


def test_the_schema_rejects_what_gradescope_does_not_document():
    """The validator can fail: an undocumented key, a wrong status or visibility."""
    good = {
        "score": 1.0,
        "tests": [
            {"name": "a", "score": 1.0, "max_score": 1.0, "status": "passed", "visibility": "visible", "output": ""}
        ],
    }
    jsonschema.validate(good, SCHEMA)
    for bad in (
        {**good, "max_score": 1.0},
        {**good, "tests": [{**good["tests"][0], "status": "ok"}]},
        {**good, "tests": [{**good["tests"][0], "visibility": "hidden_until_due"}]},
        {"tests": [{"name": "no score anywhere"}]},
        {**good, "score": "1"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


HOSTILE = """\
import os, sys
for target in ({results!r}, "/autograder/results/results.json", "../results/results.json"):
    try:
        with open(target, "w") as handle:
            handle.write('{{"score": 999, "tests": []}}')
    except Exception:
        pass
sys.exit(0)


def encode(tokens, vocab, unk_token="<UNK>"):
    return [999]
"""


def test_a_hostile_submission_cannot_write_its_own_results_or_exit_its_way_to_marks(deployment, tmp_path):
    root = deployment.autograder_root(tmp_path / "autograder")
    results_path = root / "results" / "results.json"
    (root / "submission" / "smith_123_tokens.py").write_text(HOSTILE.format(results=str(results_path)))
    done, results = run_autograder(deployment, root)
    assert done.returncode == 0, done.stdout[-2000:]
    assert_documented_results(results)
    assert results["score"] == 0 and results["tests"] and max_score(results) > 0
    assert all(t["status"] == "failed" for t in results["tests"])


def test_an_empty_submission_folder_gets_zero_and_a_sentence_in_both_languages(deployment, tmp_path):
    root = deployment.autograder_root(tmp_path / "autograder")
    done, results = run_autograder(deployment, root)
    assert done.returncode == 0
    assert_documented_results(results)
    assert results["score"] == 0 and results["tests"] == []
    assert f"{LESSON_ID}.ipynb" in results["output"] and "提交" in results["output"]


# ---- red team, round 2: file-system attacks on the deployed runner -----------------------------


def _round2_attacks():
    """tests/redteam/round2_attacks.py (a folder of test modules, not a package)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "redteam" / "round2_attacks.py"
    spec = importlib.util.spec_from_file_location("round2_attacks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_hard_link_to_the_references_is_refused(deployment, tmp_path):
    import os

    root = deployment.autograder_root(tmp_path / "autograder")
    os.link(next((root / "source").rglob("solutions/tokens.py")), root / "submission" / "tokens.py")
    done, results = run_autograder(deployment, root)
    assert done.returncode == 0, done.stdout[-2000:]
    assert_documented_results(results)
    assert results["score"] == 0 and max_score(results) > 0
    assert "hard link" in results["output"]


def test_a_deep_folder_tree_does_not_crash_the_runner(deployment, lesson_notebooks, tmp_path):
    """pick_submission used os.walk: 1 100 nested folders ended the runner before any results.json."""
    attacks = _round2_attacks()
    root = deployment.autograder_root(tmp_path / "autograder")
    attacks.build_deep_tree(root / "submission", {})
    (root / "submission" / f"{LESSON_ID}.ipynb").write_bytes(lesson_notebooks["solution"])
    try:
        done, results = run_autograder(deployment, root)
    finally:
        attacks.remove_deep_tree(root / "submission")
    assert done.returncode == 0, done.stdout[-2000:]
    assert_documented_results(results)
    assert results["score"] == max_score(results) > 0
