"""`coursegen export classroom`: a student starter repository with feedback, and nothing secret."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from coursegen.errors import ContentError
from coursegen.exports import classroom, record
from coursegen.exports.files import ExportError
from coursegen.exports.package import check_definitions
from grader import replay

from .helpers import LESSON_EXERCISES, LESSON_ID, REPO
from .leaks import find_leaks, hidden_checks, mistake_hints, solution_lines
from tests.nonempty import nonempty


def workflow(tree: Path) -> dict:
    return yaml.safe_load((tree / classroom.WORKFLOW_PATH).read_text(encoding="utf-8"))


def step_runs(tree: Path) -> list[str]:
    return [step.get("run", "") for step in workflow(tree)["jobs"]["feedback"]["steps"]]


def grade_step(tree: Path) -> dict:
    steps = workflow(tree)["jobs"]["feedback"]["steps"]
    return next(step for step in steps if step.get("id") == "grade")


# ---- what the repository holds ----------------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_starter_repository_holds_notebook_readme_workflow_and_grader(classroom_tree):
    for relative in (
        f"{LESSON_ID}.ipynb",
        "README.md",
        classroom.WORKFLOW_PATH,
        ".autograder/pyproject.toml",
        f".autograder/{classroom.RECORDING_DIR}/{replay.INDEX_FILE}",
        ".autograder/exercises/registry.py",
        ".autograder/grader/running/pytest_plugin.py",
    ):
        assert (classroom_tree / relative).is_file(), relative


def test_the_notebook_is_the_student_notebook_with_stubs(classroom_tree, lesson_notebooks):
    assert (classroom_tree / f"{LESSON_ID}.ipynb").read_bytes() == lesson_notebooks["student"]


def test_the_readme_speaks_english_and_chinese_and_says_feedback_is_not_the_grade(classroom_tree):
    readme = (classroom_tree / "README.md").read_text(encoding="utf-8")
    assert "is not your grade" in readme and "不是成绩" in readme
    for command in nonempty(classroom.grade_commands(f"{LESSON_ID}.ipynb", "en")):
        assert command in readme


def test_the_workflow_runs_on_push_and_installs_cpu_torch_then_the_shipped_grader(classroom_tree):
    flow = workflow(classroom_tree)
    triggers = flow.get("on", flow.get(True))  # PyYAML (YAML 1.1) reads the key `on` as True
    assert "push" in triggers
    install = "\n".join(step_runs(classroom_tree))
    assert f"torch=={classroom.torch_version()}" in install
    assert "--index-url https://download.pytorch.org/whl/cpu" in install
    assert "pip install ./.autograder" in install


def test_the_workflow_grades_with_coursegen_grade_and_reports_markdown_and_junit(classroom_tree):
    command = grade_step(classroom_tree)["run"]
    assert command.startswith("coursegen grade ") and "\ncoursegen report " in command
    runs = "\n".join(step_runs(classroom_tree))
    assert f'cat {classroom.MARKDOWN_FILE} >> "$GITHUB_STEP_SUMMARY"' in runs
    reports = [s for s in workflow(classroom_tree)["jobs"]["feedback"]["steps"] if "junit" in s.get("uses", "")]
    assert reports and reports[0]["with"]["report_paths"] == classroom.JUNIT_FILE
    assert f"--junit {classroom.JUNIT_FILE}" in command and f"--markdown {classroom.MARKDOWN_FILE}" in command


# ---- what it must never hold ------------------------------------------------------------------


def test_no_solution_source_appears_anywhere_in_the_export(classroom_tree, course_root):
    secrets = solution_lines(course_root)
    assert len(secrets) > 20  # the scan has something to find
    assert find_leaks(classroom_tree, secrets) == []


def test_no_mistake_hint_in_either_language_appears_anywhere_in_the_export(classroom_tree):
    secrets = mistake_hints()
    assert any("zh" in s.what for s in secrets) and any("en" in s.what for s in secrets)
    assert find_leaks(classroom_tree, secrets) == []


def test_no_hidden_check_name_or_body_appears_anywhere_in_the_export(classroom_tree, course_root):
    secrets = hidden_checks(course_root)
    assert secrets, "the fixture course should have hidden checks to hide"
    assert find_leaks(classroom_tree, secrets) == []


def test_no_solutions_or_mistakes_folder_is_shipped(classroom_tree):
    parts = {part for path in classroom_tree.rglob("*") for part in path.relative_to(classroom_tree).parts}
    assert not parts & {"solutions", "mistakes"}


def test_the_shipped_checks_are_exactly_the_public_checks_of_the_lesson(classroom_tree, course_root):
    def names(folder: Path, keep) -> set[str]:
        return {d.name for path in folder.glob("test_*.py") for d in check_definitions(path) if keep(d)}

    expected = names(course_root / "grader" / "checks", lambda d: not d.hidden and d.exercise in LESSON_EXERCISES)
    assert expected
    assert names(classroom_tree / ".autograder" / "grader" / "checks", lambda d: True) == expected


def test_the_recording_is_json_and_raw_bytes_for_the_lesson_only(classroom_tree):
    folder = classroom_tree / ".autograder" / classroom.RECORDING_DIR
    assert sorted(p.name for p in folder.iterdir()) == [replay.INDEX_FILE, replay.TENSOR_FILE]
    index = json.loads((folder / replay.INDEX_FILE).read_text(encoding="utf-8"))
    assert index["seed"] == replay.PUBLIC_SEED
    assert set(index["exercises"]) == set(LESSON_EXERCISES)
    assert b"\x80\x04" not in (folder / replay.TENSOR_FILE).read_bytes()[:2]  # not a pickle stream


def test_the_exporter_and_the_grader_agree_on_the_replay_contract():
    assert (record.RECORD_ENV, record.REPLAY_ENV, record.PUBLIC_SEED) == (
        replay.RECORD_ENV,
        replay.REPLAY_ENV,
        replay.PUBLIC_SEED,
    )


# ---- refusals ---------------------------------------------------------------------------------


def test_an_unknown_lesson_is_a_content_error_naming_the_lessons(course_root, tmp_path):
    with pytest.raises(ContentError, match=f"no lesson 'nope'.*{LESSON_ID}"):
        classroom.export_classroom(course_root, "nope", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_folder_holding_other_files_is_refused_by_the_command(course_root, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    done = subprocess.run(
        ["coursegen", "export", "classroom", "--lesson", LESSON_ID, "-o", str(out), "--root", str(course_root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "not written by coursegen export" in done.stderr
    assert (out / "notes.txt").read_text() == "keep me"


# The workflow run as GitHub runs it (its steps in a fresh venv): test_deployed_classroom.py.


def _public_check_names(tree: Path):
    for path in (tree / ".autograder" / "grader" / "checks").glob("test_*.py"):
        yield from (d.name for d in check_definitions(path))


@pytest.mark.slow
def test_exporting_twice_gives_byte_identical_trees(course_root, classroom_tree, tmp_path):
    again = tmp_path / "again"
    classroom.export_classroom(course_root, LESSON_ID, again)
    first = {str(p.relative_to(classroom_tree)): p.read_bytes() for p in classroom_tree.rglob("*") if p.is_file()}
    second = {str(p.relative_to(again)): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


def test_the_workflow_grades_the_notebook_once_with_the_shipped_command(classroom_tree):
    lines = grade_step(classroom_tree)["run"].strip().splitlines()
    assert [shlex.split(line)[:2] for line in lines] == [["coursegen", "grade"], ["coursegen", "report"]]
    assert shlex.split(lines[0])[2] == f"{LESSON_ID}.ipynb"
    assert str(REPO) not in "\n".join(lines)


@pytest.mark.slow
def test_every_public_check_of_the_course_can_be_precomputed_without_leaking(tmp_path):
    """A lesson with all fifteen exercises: the export's own proof (the solution notebook passes
    every shipped check against the recording) covers every public check, and nothing leaks."""
    from tests.first_course import EXERCISES

    from .helpers import make_course

    root = make_course(tmp_path / "course", tuple(e.name for e in EXERCISES))
    done = classroom.export_classroom(root, LESSON_ID, tmp_path / "starter")
    assert done.checks == len(list(_public_check_names(tmp_path / "starter")))
    secrets = solution_lines(root) + mistake_hints() + hidden_checks(root)
    assert find_leaks(tmp_path / "starter", secrets) == []


@pytest.mark.slow
def test_no_lesson_of_the_real_course_leaks_into_its_starter_repository(tmp_path, monkeypatch):
    """The real course's lessons, exported as they are: their statements and notebooks must not
    carry solution code, hints or hidden checks either.

    Each export is made without its recording (the reference's answers to the public checks,
    recorded by grading the solution notebook in a child, most of an export's time): what a
    recording holds comes from an exercise's checks and reference, not from the lesson that holds
    it, and the test above records and scans every exercise of the course (the lessons hold no
    other exercise: asserted here)."""
    from coursegen.loader import load_course
    from tests.first_course import EXERCISES

    loaded = load_course(REPO)
    lessons = [lesson.id for lesson in loaded.lessons if lesson.exercises]
    assert {e.name for lesson in loaded.lessons for e in lesson.exercises} <= {e.name for e in EXERCISES}
    monkeypatch.setattr(classroom, "_record_and_verify", lambda root, solution, package, lesson: 0)
    secrets = solution_lines(REPO) + mistake_hints() + hidden_checks(REPO)
    leaks = []
    for lesson_id in lessons:
        classroom.export_classroom(REPO, lesson_id, tmp_path / lesson_id)
        leaks += find_leaks(tmp_path / lesson_id, secrets)
    assert lessons and leaks == []


UNREPLAYABLE_CHECK = """


@pytest.mark.exercise("encode")
def test_encode_with_inputs_from_the_global_generator(candidate, reference):
    vocab = {"<UNK>": 0, "w1": 1}
    tokens = [f"w{int(i)}" for i in torch.randint(0, 1000, (8,))]  # torch's global generator: differs per run
    expect_call(candidate, reference, "encode", tokens, vocab)
"""


@pytest.mark.slow
def test_a_public_check_whose_inputs_do_not_come_from_rng_stops_the_export(tmp_path):
    from .helpers import make_course

    root = make_course(tmp_path / "course", ("encode",))
    with (root / "grader" / "checks" / "test_tokens.py").open("a", encoding="utf-8") as handle:
        handle.write(UNREPLAYABLE_CHECK)
    with pytest.raises(ExportError, match="test_encode_with_inputs_from_the_global_generator"):
        classroom.export_classroom(root, LESSON_ID, tmp_path / "starter")
    assert not (tmp_path / "starter").exists()
