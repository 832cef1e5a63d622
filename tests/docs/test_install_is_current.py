"""tests/run skips `pip install -e '.[test]'` only when tests/install_is_current.py says the install
is this checkout's and current. Each case is an installed distribution written by hand (a
dist-info folder: METADATA and direct_url.json, as pip writes them) next to a pyproject.toml."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
from install_is_current import is_current

PYPROJECT = """[project]
name = "coursegen"
dependencies = ["pytest>=1", "pyseccomp>=0.1; sys_platform == 'win32'"]
[project.optional-dependencies]
test = ["coursegen[cluster]", "pytest>=2; python_version >= '3'"]
cluster = ["pytest>=3"]
"""
INSTALLED = [  # what setuptools writes for PYPROJECT
    "pytest>=1",
    'pyseccomp>=0.1; sys_platform == "win32"',
    'coursegen[cluster]; extra == "test"',
    'pytest>=2; python_version >= "3" and extra == "test"',
    'pytest>=3; extra == "cluster"',
]


def installed(tmp_path: Path, root: Path, requires: list[str], *, editable: bool = True) -> metadata.Distribution:
    info = tmp_path / "site" / "coursegen-0.1.0.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", "Name: coursegen", "Version: 0.1.0"]
    (info / "METADATA").write_text("\n".join(lines + [f"Requires-Dist: {r}" for r in requires]) + "\n")
    (info / "direct_url.json").write_text(json.dumps({"url": root.as_uri(), "dir_info": {"editable": editable}}))
    return metadata.PathDistribution(info)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text(PYPROJECT)
    return checkout


def test_this_checkouts_current_editable_install_is_current(tmp_path, root):
    assert is_current(root, installed(tmp_path, root, INSTALLED))


def test_an_install_of_another_folder_is_not_current(tmp_path, root):
    assert not is_current(root, installed(tmp_path, tmp_path / "elsewhere", INSTALLED))


def test_a_non_editable_install_is_not_current(tmp_path, root):
    assert not is_current(root, installed(tmp_path, root, INSTALLED, editable=False))


def test_a_requirement_added_to_pyproject_since_the_install_is_not_current(tmp_path, root):
    dist = installed(tmp_path, root, INSTALLED)
    (root / "pyproject.toml").write_text(PYPROJECT.replace('cluster = ["pytest>=3"]', 'cluster = ["pytest>=3", "six"]'))
    assert not is_current(root, dist)


def test_a_requirement_the_environment_does_not_meet_is_not_current(tmp_path, root):
    unmet = PYPROJECT.replace('cluster = ["pytest>=3"]', 'cluster = ["pytest>=9999"]')
    (root / "pyproject.toml").write_text(unmet)
    requires = [r.replace("pytest>=3", "pytest>=9999") for r in INSTALLED]
    assert not is_current(root, installed(tmp_path, root, requires))


def test_an_extra_is_met_with_the_extras_it_names(tmp_path, root):
    """`cluster` is named by `test`: its unmet requirement counts for `test`, not for `other`."""
    unmet = PYPROJECT.replace('cluster = ["pytest>=3"]', 'cluster = ["pytest>=9999"]\nother = ["pytest>=1"]')
    (root / "pyproject.toml").write_text(unmet)
    requires = [r.replace("pytest>=3", "pytest>=9999") for r in INSTALLED] + ['pytest>=1; extra == "other"']
    dist = installed(tmp_path, root, requires)
    assert not is_current(root, dist, "test")
    assert is_current(root, dist, "other")
