"""The exported package's dependencies are derived from what its code imports."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from coursegen.exports.files import ExportError
from coursegen.exports.requirements import declared_requirements, package_requirements


def package(tmp_path: Path, **modules: str) -> Path:
    root = tmp_path / "package"
    (root / "grader").mkdir(parents=True)
    (root / "grader" / "__init__.py").write_text("")
    for name, source in modules.items():
        (root / "grader" / f"{name}.py").write_text(textwrap.dedent(source))
    return root


def names(requirements) -> set[str]:
    return {r.split(">")[0].split("=")[0].split("<")[0].lower() for r in requirements}


def test_an_import_inside_a_function_is_a_dependency_with_the_projects_specifier(tmp_path):
    root = package(tmp_path, batch="def run():\n    from tqdm import tqdm\n    return tqdm\n")
    assert package_requirements(root) == (str(declared_requirements()["tqdm"]),)
    assert ">=" in package_requirements(root)[0]


def test_stdlib_own_modules_and_guarded_imports_are_not_dependencies(tmp_path):
    root = package(
        tmp_path,
        a="""\
        import json, os.path
        from grader import b
        from . import b as c
        try:
            import numpy
        except ImportError:
            numpy = None
        """,
        b="",
    )
    assert package_requirements(root) == ()


def test_an_import_name_maps_to_its_distribution(tmp_path):
    root = package(tmp_path, a="import _pytest\nimport yaml\n")
    assert names(package_requirements(root)) == {"pytest", "pyyaml"}


def test_an_undeclared_import_names_the_file_and_line(tmp_path):
    root = package(tmp_path, a="import json\n\nimport surely_not_a_declared_module\n")
    with pytest.raises(ExportError, match=r"grader/a\.py:3: imports `surely_not_a_declared_module`"):
        package_requirements(root)


def test_the_project_itself_is_never_a_dependency_and_never_imported_at_module_level(tmp_path):
    inside = package(tmp_path, a="def build():\n    from coursegen.build import build_site\n    import solutions\n")
    assert package_requirements(inside) == ()
    at_top = package(tmp_path / "2", a="from coursegen.loader import load_course\n")
    with pytest.raises(ExportError, match=r"grader/a\.py:1: imports `coursegen` at module level"):
        package_requirements(at_top)


def test_type_checking_imports_are_not_dependencies(tmp_path):
    root = package(tmp_path, a="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import numpy\n")
    assert package_requirements(root) == ()


def test_an_installed_engine_without_its_pyproject_declares_what_the_source_tree_declares(tmp_path, monkeypatch):
    # A wheel install has no pyproject.toml beside the package: the distribution's metadata is read,
    # platform markers kept, the `extra == ...` markers of the optional groups dropped.
    from coursegen.exports import requirements

    from_source = {name: str(r) for name, r in declared_requirements().items()}
    monkeypatch.setattr(requirements, "SOURCE_PYPROJECT", tmp_path / "no-pyproject.toml")
    from_metadata = {name: str(r) for name, r in declared_requirements().items()}
    assert from_metadata == from_source
    assert 'sys_platform == "linux"' in from_metadata["pyseccomp"]
    assert "hypothesis" in from_metadata and "extra" not in from_metadata["hypothesis"]
