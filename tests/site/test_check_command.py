"""`coursegen check` validates everything `build` validates without running code.

One test per kind of mistake, on a copy of the real course (content plus the exercise,
solution and check files build reads): each asserts the exit code, the file:line:column
and the message, and that check imports no torch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import Ran, run_cli

REPO = Path(__file__).resolve().parents[2]
QUIZ = "content/quizzes/learned-relative.yaml"
LESSON = "content/lessons/rope-alibi.yaml"


class FullCourse:
    def __init__(self, root: Path):
        self.root = root

    def replace(self, relative: str, old: str, new: str) -> None:
        path = self.root / relative
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {relative}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def position(self, relative: str, needle: str) -> str:
        text = (self.root / relative).read_text(encoding="utf-8")
        index = text.index(needle)
        line = text.count("\n", 0, index) + 1
        column = index - (text.rfind("\n", 0, index) + 1) + 1
        return f"{relative}:{line}:{column}"

    def check(self) -> Ran:
        return run_cli("check", "--root", self.root, cwd=self.root.parent)


@pytest.fixture
def full(tmp_path: Path) -> FullCourse:
    root = tmp_path / "course"
    shutil.copytree(REPO / "content", root / "content")
    for folder in ("exercises", "solutions"):
        shutil.copytree(REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        REPO / "grader" / "checks", root / "grader" / "checks", ignore=shutil.ignore_patterns("__pycache__")
    )
    return FullCourse(root)


def errors_of(result: Ran) -> list[str]:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[-1].endswith("error(s); nothing was written.") or lines[-1] == "1 error; nothing was written."
    return lines[:-1]


def test_the_real_course_passes_check(full):
    from ruamel.yaml import YAML

    from tests.first_course import EXERCISES

    # The expected counts come from the sources of truth, read here apart from coursegen:
    # the course's lesson list, the quiz files and their questions, the registry, the check files.
    yaml = YAML(typ="safe")
    lessons = yaml.load((full.root / "content" / "course.yaml").read_text(encoding="utf-8"))["lessons"]
    quizzes = [
        yaml.load(path.read_text(encoding="utf-8"))
        for path in sorted((full.root / "content" / "quizzes").glob("*.yaml"))
    ]
    questions = sum(len(quiz["questions"]) for quiz in quizzes)
    check_files = sorted((full.root / "grader" / "checks").glob("test_*.py"))
    assert len(lessons) == len(quizzes) >= 5 and questions and check_files
    result = full.check()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"OK: {len(lessons)} lesson(s), {len(quizzes)} quiz(zes) with {questions} "
        f"question(s), {len(EXERCISES)} exercise(s) and {len(check_files)} "
        "check file(s) checked."
    )


def test_check_imports_no_torch(full):
    """A process of its own (not tests/cli.py's run_cli): this one's torch is already loaded."""
    code = (
        "import sys; from coursegen.check import check_course; check_course(sys.argv[1]); print('torch' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(full.root)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_unknown_answer_function_is_reported_with_a_did_you_mean(full):
    full.replace(QUIZ, "answer: relative_offset", "answer: relative_ofset")
    (error,) = errors_of(full.check())
    assert error.startswith(
        f"{full.position(QUIZ, 'answer: relative_ofset')}: question 'relative-entry': unknown answer "
        "function 'relative_ofset'; did you mean 'relative_offset'? (known: "
    )


def test_misspelt_parameter_name_is_reported_at_the_parameter(full):
    full.replace(QUIZ, "        S: {choices: [12, 16]}", "        s: {choices: [12, 16]}")
    errors = errors_of(full.check())
    assert errors == [
        f"{full.position(QUIZ, 'answer: relative_offset').rsplit(':', 2)[0]}:"
        f"{int(full.position(QUIZ, '        s: {choices: [12, 16]}').split(':')[1]) - 1}:7: question 'relative-entry': "
        "parameter(s) S of 'relative_offset' not given (it takes S, i, j)",
        f"{full.position(QUIZ, 's: {choices: [12, 16]}')}: question 'relative-entry': 'relative_offset' has no "
        "parameter 's'; did you mean 'S'? (it takes S, i, j)",
    ]


def test_parameter_value_of_the_wrong_type_is_an_error(full):
    full.replace(QUIZ, "S: {range: [3, 40]}", "S: {choices: [3, 4.5, 40]}")
    (error,) = errors_of(full.check())
    assert error == (
        f"{full.position(QUIZ, 'S: {choices: [3, 4.5, 40]}')}: question 'relative-distinct': "
        "parameter 'S' of 'relative_distinct' takes int values, got 4.5"
    )


def test_misspelt_quiz_key_is_an_error(full):
    full.replace(QUIZ, "    default_wrong_feedback:", "    default_wrong_fedback:")
    (error,) = errors_of(full.check())
    assert error.startswith(full.position(QUIZ, "default_wrong_fedback:"))
    assert "unknown field 'default_wrong_fedback': did you mean 'default_wrong_feedback'?" in error


def test_generated_explanation_without_the_answer_is_an_error(full):
    full.replace(QUIZ, "- 1 =$ {{answer}} values", "- 1$ values")
    (error,) = errors_of(full.check())
    assert error.startswith(f"{QUIZ}:")
    assert error.endswith(
        "question 'relative-distinct': the explanation (en) must show the key: put {{answer}} "
        "where the computed value goes"
    )


def test_hand_written_distractor_equal_to_the_answer_is_an_error(full):
    quiz = "content/quizzes/rope-alibi.yaml"
    full.replace(quiz, '      - value: "-1"\n', '      - value: "zero"\n')
    (error,) = errors_of(full.check())
    assert (
        error == f"{full.position(quiz, '- id: alibi-self')[:-2]}:5: question 'alibi-self': distractor 'zero' "
        "is also an accepted answer"
    )


def test_unknown_exercise_in_a_lesson_has_a_did_you_mean(full):
    full.replace(LESSON, "  - name: alibi_slopes", "  - name: alibi_slope")
    (error,) = errors_of(full.check())
    assert error.startswith(
        f"{full.position(LESSON, 'name: alibi_slope')}: unknown exercise 'alibi_slope'; "
        "did you mean 'alibi_slopes'? (expected a name from exercises/registry.py:"
    )


def test_exercise_missing_from_its_reference_is_an_error(full):
    path = full.root / "solutions" / "alibi.py"
    path.write_text(
        path.read_text(encoding="utf-8").replace("def alibi_bias(", "def alibi_bias_(", 1), encoding="utf-8"
    )
    (error,) = errors_of(full.check())
    assert error == (
        f"{full.position(LESSON, 'name: alibi_bias')}: exercise 'alibi_bias': solutions/alibi.py defines no "
        "'alibi_bias' (its reference)"
    )


def test_exercise_without_a_check_is_an_error(full):
    path = full.root / "grader" / "checks" / "test_alibi.py"
    path.write_text(
        path.read_text(encoding="utf-8").replace('exercise("alibi_bias")', 'exercise("alibi_slopes")'), encoding="utf-8"
    )
    (error,) = errors_of(full.check())
    assert error == (
        f"{full.position(LESSON, 'name: alibi_bias')}: exercise 'alibi_bias' has no check: mark one in "
        'grader/checks/test_alibi.py with @pytest.mark.exercise("alibi_bias")'
    )


def test_check_file_with_a_syntax_error_is_reported_at_its_line(full):
    path = full.root / "grader" / "checks" / "test_rope.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, "def broken(:\n")
    path.write_text("".join(lines), encoding="utf-8")
    errors = errors_of(full.check())
    assert errors[-1].startswith("grader/checks/test_rope.py:4:")
    assert errors[-1].endswith("the check file is not valid Python: invalid syntax")


def test_check_marked_with_an_unknown_exercise_is_an_error(full):
    path = full.root / "grader" / "checks" / "test_rope.py"
    text = path.read_text(encoding="utf-8")
    index = text.index('exercise("apply_rope")')
    path.write_text(text.replace('exercise("apply_rope")', 'exercise("aply_rope")', 1), encoding="utf-8")
    line = text.count("\n", 0, index) + 1
    (error,) = errors_of(full.check())
    assert error.startswith(f"grader/checks/test_rope.py:{line}:2: check '")
    assert error.endswith(
        "is marked with unknown exercise 'aply_rope'; did you mean 'apply_rope'? "
        "(expected a name from exercises/registry.py)"
    )


def test_broken_course_link_is_reported(full):
    full.replace(LESSON, "quiz: rope-alibi", "quiz: rope-alibi-2")
    (error,) = errors_of(full.check())
    assert error.startswith(f"{full.position(LESSON, 'quiz: rope-alibi-2')[:-1]}")
    assert "quiz 'rope-alibi-2' not found: expected the file content/quizzes/rope-alibi-2.yaml" in error
