"""The stubs are generated from the references and never drift from them."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from coursegen.errors import ContentError
from coursegen.stubs import BEGIN, END, make_stub, stale_stubs
from tests.cli import run_cli
from tests.first_course import EXERCISES, MODULES

ROOT = Path(__file__).resolve().parents[2]


def test_committed_stubs_equal_the_generated_output():
    assert stale_stubs(ROOT) == []


def test_stubs_check_command_exits_0_when_in_sync():
    result = run_cli("stubs", "--check", cwd=ROOT)
    assert result.exit_code == 0, result.output


def test_stubs_check_command_exits_1_naming_the_file_that_differs(tmp_path, monkeypatch):
    for folder in ("solutions", "exercises"):
        (tmp_path / folder).mkdir()
    for module in MODULES:
        (tmp_path / "solutions" / f"{module}.py").write_text((ROOT / "solutions" / f"{module}.py").read_text())
        (tmp_path / "exercises" / f"{module}.py").write_text((ROOT / "exercises" / f"{module}.py").read_text())
    (tmp_path / "exercises" / "registry.py").write_text((ROOT / "exercises" / "registry.py").read_text())
    (tmp_path / "exercises" / "rope.py").write_text("# edited by hand\n")
    result = run_cli("stubs", "--check", "--root", tmp_path)
    assert result.exit_code == 1
    assert "exercises/rope.py: differs" in result.stderr
    assert "exercises/alibi.py" not in result.stderr
    assert (tmp_path / "exercises" / "rope.py").read_text() == "# edited by hand\n"


def test_stubs_command_rewrites_a_drifted_stub(tmp_path, monkeypatch):
    for folder in ("solutions", "exercises"):
        (tmp_path / folder).mkdir()
    for module in MODULES:
        (tmp_path / "solutions" / f"{module}.py").write_text((ROOT / "solutions" / f"{module}.py").read_text())
    (tmp_path / "exercises" / "registry.py").write_text((ROOT / "exercises" / "registry.py").read_text())
    result = run_cli("stubs", "--root", tmp_path)
    assert result.exit_code == 0, result.output
    for module in MODULES:
        assert (tmp_path / "exercises" / f"{module}.py").read_text() == (
            ROOT / "exercises" / f"{module}.py"
        ).read_text()


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.name)
def test_stub_keeps_the_signature_and_docstring_of_the_reference(exercise):
    stub = getattr(importlib.import_module(f"exercises.{exercise.module}"), exercise.name)
    ref = getattr(importlib.import_module(f"solutions.{exercise.module}"), exercise.name)
    assert inspect.signature(stub) == inspect.signature(ref)
    assert inspect.getdoc(stub) == inspect.getdoc(ref)
    assert inspect.getdoc(ref), f"{exercise.name} needs a docstring: students read it in their stub"


@pytest.mark.parametrize("module", MODULES)
def test_stub_contains_no_solution_code(module):
    text = (ROOT / "exercises" / f"{module}.py").read_text()
    assert BEGIN not in text and END not in text
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            body = [s for s in body if "super().__init__" not in ast.unparse(s)]
            assert len(body) == 1 and isinstance(body[0], ast.Raise), f"{module}.{node.name} still has code"


def test_make_stub_replaces_a_region_at_its_indentation():
    source = f'def f():\n    """Doc."""\n    {BEGIN}\n    return 1\n    {END}\n'
    assert make_stub(source, "m").endswith('def f():\n    """Doc."""\n    raise NotImplementedError\n')


def test_make_stub_reports_an_unclosed_region_with_its_line():
    source = f"def f():\n    {BEGIN}\n    return 1\n"
    with pytest.raises(ContentError, match=r"ref\.py:2:5: .*never closed"):
        make_stub(source, "m", "ref.py")


def test_make_stub_reports_an_end_without_begin():
    with pytest.raises(ContentError, match=r"ref\.py:2:5: .*without"):
        make_stub(f"def f():\n    {END}\n", "m", "ref.py")


def test_make_stub_refuses_a_module_without_regions():
    with pytest.raises(ContentError, match="no .* region"):
        make_stub("def f():\n    return 1\n", "m", "ref.py")
