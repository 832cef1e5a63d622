"""The one root of every error the project raises on purpose.

A command that meets a CoursegenError it does not handle itself prints it and exits with the
error's `exit_status` (coursegen/cli.py, Program.invoke): 1 when the input is wrong (course
content, a course's code, an upgrade), 2 when the command could not run (a gradebook, a batch, an
export). Exceptions that exist only to carry a check's verdict or to interrupt instructor code
derive from it too, beside the builtin class their callers catch (AssertionError for a failed
check, ValueError for parameters a quiz template refuses).

Two exceptions stand apart on purpose: the notebook's self-check failure
(coursegen/selfcheck_tools.py is a notebook cell, copied byte for byte into student notebooks,
and imports nothing of the engine) and the instructor-time interruption
(grader/checking/instructor_limit.py, a BaseException so that no `except Exception` in
instructor code can swallow it).

This module imports nothing: the sandbox's child, the build and the grader all share it.
"""

from __future__ import annotations


class CoursegenError(Exception):
    """An error of coursegen's, with the exit status a command ends with when it meets it."""

    exit_status = 2

    def lines(self) -> list[str]:
        """What a command prints for it, one line each (ContentErrors prints every error)."""
        return [str(self)]
