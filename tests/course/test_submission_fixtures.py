"""The submission fixtures are what their folder says: the grader's tests rely on it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.first_course import MODULES, exercises_in

SUBMISSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


@pytest.mark.parametrize("module", MODULES)
def test_every_module_has_each_kind_of_fixture(module):
    for kind in ("correct", "syntax_error", "missing_function"):
        assert (SUBMISSIONS / kind / f"{module}.py").is_file(), f"{kind}/{module}.py"


@pytest.mark.parametrize("module", MODULES)
def test_syntax_error_fixture_does_not_parse(module):
    with pytest.raises(SyntaxError):
        ast.parse((SUBMISSIONS / "syntax_error" / f"{module}.py").read_text())


@pytest.mark.parametrize("module", MODULES)
def test_missing_function_fixture_lacks_an_exercise_name(module):
    names = {e.name for e in exercises_in(module)}
    assert names - _defined(SUBMISSIONS / "missing_function" / f"{module}.py")


@pytest.mark.parametrize("module", MODULES)
def test_correct_fixture_defines_every_exercise_name(module):
    assert {e.name for e in exercises_in(module)} <= _defined(SUBMISSIONS / "correct" / f"{module}.py")


def test_renamed_upload_defines_apply_rope_under_a_non_module_file_name():
    path = SUBMISSIONS / "renamed" / "smith_123_rope-1.py"
    assert path.stem not in MODULES and "apply_rope" in _defined(path)
