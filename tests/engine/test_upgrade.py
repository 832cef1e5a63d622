"""A course made by the `coursegen new` of the previous release carries its own copy of the course
contract (an Exercise dataclass in its registry, the mistake machinery in solutions/mistakes/,
imported by the course's module name). The engine refuses it with a located error naming the fix,
`coursegen upgrade` migrates it, and the migrated course verifies like a new one.

The fixture tests/engine/fixtures/old_contract_course is that release's template, as it wrote it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen.upgrade import UpgradeError, plan, relative_imports
from grader.course import Course, CourseError
from tests.cli import Ran, run_cli
from tests.nonempty import nonempty

OLD = Path(__file__).resolve().parent / "fixtures" / "old_contract_course"


def coursegen(*args: str, cwd: Path) -> Ran:
    return run_cli(*args, cwd=cwd)


@pytest.fixture
def old_course(tmp_path) -> Path:
    return Path(shutil.copytree(OLD, tmp_path / "course", ignore=shutil.ignore_patterns("__pycache__")))


def test_the_engine_refuses_the_old_contract_naming_file_line_and_the_upgrade(old_course):
    with pytest.raises(CourseError) as raised:
        Course.load(old_course).catalogue()
    message = str(raised.value)
    assert "solutions/mistakes/__init__.py:" in message and "coursegen upgrade" in message
    done = coursegen("verify", "--root", str(old_course), cwd=old_course)
    assert done.returncode != 0
    assert "coursegen upgrade" in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.slow
def test_upgrade_migrates_the_course_which_then_verifies_and_a_second_upgrade_changes_nothing(old_course):
    before = {p.relative_to(old_course): p.read_bytes() for p in old_course.rglob("*") if p.is_file()}
    done = coursegen("upgrade", "--root", str(old_course), cwd=old_course)
    assert done.returncode == 0, done.stderr
    changed = {p for p, data in before.items() if (old_course / p).read_bytes() != data}
    assert changed == {
        Path("exercises/registry.py"),
        Path("solutions/mistakes/__init__.py"),
        Path("solutions/mistakes/vectors.py"),
    }
    for path in changed:
        assert str(path) in done.stdout
    assert "def mistake(" not in (old_course / "solutions/mistakes/__init__.py").read_text()
    assert "from grader.contract import mistake" in (old_course / "solutions/mistakes/vectors.py").read_text()
    assert "class Exercise" not in (old_course / "exercises/registry.py").read_text()
    # the references, stubs, checks, lessons and plugins are the author's and stay as they were
    assert all((old_course / p).read_bytes() == data for p, data in nonempty(before.items()) if p not in changed)
    verified = coursegen("verify", "--all", "--root", str(old_course), cwd=old_course)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "mistake dot-no-sum" in verified.stdout
    again = coursegen("upgrade", "--root", str(old_course), cwd=old_course)
    assert again.returncode == 0 and "up to date" in again.stdout


def test_upgrade_check_reports_without_writing(old_course):
    before = {p: p.read_bytes() for p in old_course.rglob("*") if p.is_file()}
    done = coursegen("upgrade", "--check", "--root", str(old_course), cwd=old_course)
    assert done.returncode == 1 and "exercises/registry.py" in done.stdout
    assert {p: p.read_bytes() for p in old_course.rglob("*") if p.is_file()} == before


def test_imports_within_the_course_become_relative_and_the_contract_comes_from_the_engine():
    text = "from solutions.mistakes import mistake\nfrom solutions.vectors import dot\nimport math\n"
    assert relative_imports(text, Path("solutions/mistakes/vectors.py")) == (
        "from grader.contract import mistake\nfrom ..vectors import dot\nimport math\n"
    )
    assert relative_imports("from solutions.a import b\n", Path("solutions/c.py")) == "from .a import b\n"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("import solutions.vectors\n", "solutions/x.py:1"),
        ("x = 1\nfrom solutions.mistakes import catalogue\n", "solutions/mistakes/x.py:2"),
        ("from exercises.vectors import dot\n", "solutions/x.py:1"),
    ],
)
def test_what_cannot_be_migrated_mechanically_is_located_and_nothing_is_written(tmp_path, text, where):
    path = Path(where.split(":")[0])
    with pytest.raises(UpgradeError, match=where):
        relative_imports(text, path)
    (tmp_path / path).parent.mkdir(parents=True)
    (tmp_path / path).write_text(text)
    with pytest.raises(UpgradeError):
        plan(tmp_path)
    assert (tmp_path / path).read_text() == text
