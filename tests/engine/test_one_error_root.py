"""Every exception class the engine defines derives from grader.errors.CoursegenError, so a command
handles the project's errors once (coursegen/cli.py, Program.invoke) instead of catching tuples.
The two documented exceptions stand apart on purpose (grader/errors.py says why)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import coursegen
import grader
from grader.errors import CoursegenError

APART = {
    "coursegen.selfcheck_tools._SelfCheckFailure",  # a notebook cell's text: imports nothing of the engine
    "grader.checking.instructor_limit._Interrupted",  # a BaseException: instructor code cannot swallow it
}
NOT_ENGINE = ("grader.checks", "coursegen.new_course", "coursegen.templates")


def engine_modules() -> list[str]:
    names = []
    for package in (coursegen, grader):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.startswith(NOT_ENGINE) and info.name != "coursegen.__main__":
                names.append(info.name)
    return names


def test_every_engine_exception_has_the_one_project_root():
    defined = []
    for name in engine_modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == name and issubclass(cls, BaseException):
                defined.append(cls)
    assert len(defined) > 20, "the walk found the engine's exceptions"
    stray = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in defined
        if not issubclass(cls, CoursegenError) and f"{cls.__module__}.{cls.__qualname__}" not in APART
    )
    assert stray == []


@pytest.mark.parametrize(("status", "expected"), [(1, 1), (2, 2)])
def test_a_project_error_no_command_handles_ends_the_command_with_its_status(status, expected):
    import click
    from click.testing import CliRunner

    from coursegen.cli import Program

    class Broken(CoursegenError):
        exit_status = status

    @click.group(cls=Program)
    def program() -> None:
        pass

    @program.command()
    def fails() -> None:
        raise Broken("grader/checks/test_x.py:3: what is wrong")

    result = CliRunner().invoke(program, ["fails"])
    assert result.exit_code == expected
    if status == 1:  # the input is wrong: located lines, then that nothing was written
        assert "grader/checks/test_x.py:3: what is wrong" in result.output
        assert "1 error; nothing was written." in result.output
    else:  # the command could not run: said as every command says it (_common.cannot_run)
        assert "coursegen fails: error: grader/checks/test_x.py:3: what is wrong" in result.output
    assert "Traceback" not in result.output


def test_a_project_error_is_said_by_the_command_of_a_group_that_raised_it():
    import click
    from click.testing import CliRunner

    from coursegen.cli import Program

    @click.group(cls=Program)
    def program() -> None:
        pass

    @program.group()
    def book() -> None:
        pass

    @book.command()
    def export() -> None:
        raise CoursegenError("gradebook.sqlite: not a gradebook")

    result = CliRunner().invoke(program, ["book", "export"])
    assert result.exit_code == 2
    assert result.output == "coursegen book export: error: gradebook.sqlite: not a gradebook\n"
