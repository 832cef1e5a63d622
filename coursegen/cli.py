"""coursegen: build a verified course, grade submissions, generate quizzes.

This module is the command group: how the program ends (Program) and which commands it has.
The commands themselves are in coursegen/commands/, one module per command group, each thin:
it parses its options, calls one engine (coursegen.* for building, grader.* for grading) and
reports. Engines are imported inside the commands so that `coursegen --help` and a no-change
rebuild stay fast (no torch).

Exit codes: 0 success; 1 the input (course content, a verification) is wrong;
2 the command could not run (bad arguments, a broken environment).

The imports are relative: an exported grading package ships this file and commands/ as its
`coursegen_cli` package (coursegen/exports/package.py), without the rest of `coursegen`.
"""

from __future__ import annotations

import sys
import traceback

import click

from .commands import (
    build,
    check,
    export,
    feedback,
    grade,
    gradebook,
    guide,
    mistakes,
    new,
    notebooks,
    quiz,
    report,
    schema,
    serve,
    service,
    similarity,
    slides,
    stubs,
    upgrade,
    verify,
)
from .commands._common import EXIT_CANNOT_RUN, cannot_run, ends_at_once


class Program(click.Group):
    """The command group. Run as the program (`coursegen ...`), a command that ends with
    `end_at_once(status)` ends the process as soon as its output is written and closed:
    exit handlers run, but the interpreter is not torn down module by module (with torch and
    pytest loaded that takes longer than the whole of a no-change build). Called with explicit
    arguments (click's CliRunner, other Python code), it behaves like any click group."""

    def main(self, args=None, *rest, **kwargs):
        if args is not None or not kwargs.get("standalone_mode", True):
            return super().main(args, *rest, **kwargs)
        try:
            return super().main(args, *rest, **kwargs)
        except SystemExit as done:
            if not ends_at_once():
                raise
            _exit_now(done.code)

    def invoke(self, ctx):
        """Every error of the project's (grader.errors.CoursegenError) is handled here, once, for
        every command: printed, located where it knows its place, and the command ends with the
        error's exit status, never with a traceback. 1, the input is wrong (e.g. a course whose
        code cannot be loaded): its lines, then that nothing was written; 2, the command could
        not run: `coursegen COMMAND: error: MESSAGE`, as every command says it (cannot_run)."""
        from grader.errors import CoursegenError

        try:
            return super().invoke(ctx)
        except CoursegenError as exc:
            lines = exc.lines()
            if exc.exit_status == EXIT_CANNOT_RUN:
                for line in lines:
                    cannot_run(_command_of(exc, ctx), line)
            else:
                for line in lines:
                    click.echo(line, err=True)
                click.echo(f"{len(lines)} error{'' if len(lines) == 1 else 's'}; nothing was written.", err=True)
            ctx.exit(exc.exit_status)


def _command_of(exc: BaseException, top: click.Context) -> str:
    """The command (`grade`, `gradebook export`) whose run raised `exc`: the innermost click
    context its traceback passed through, named without the program."""
    innermost = top
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        for name in ("ctx", "self"):
            found = frame.f_locals.get(name)
            if isinstance(found, click.Context):
                innermost = found
    names = []
    context: click.Context | None = innermost
    while context is not None and context is not top and context.parent is not None:
        names.append(context.info_name or "")
        context = context.parent
    return " ".join(reversed(names)) or (top.info_name or "coursegen")


def _exit_now(code) -> None:
    import atexit
    import os
    import threading

    status = code if isinstance(code, int) else 0 if code is None else 1
    if not isinstance(code, (int, type(None))):
        print(code, file=sys.stderr)
    for thread in threading.enumerate():  # what the interpreter would wait for
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # what Python exits with when flushing fails
    os._exit(status)


@click.group(cls=Program, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="coursegen", prog_name="coursegen")
def main() -> None:
    """Build a verified course (site, notebooks, quizzes) and grade submissions against it."""


# course: check, build, serve, schema, new, guide, notebooks, slides, stubs, upgrade
main.add_command(check.check)
main.add_command(build.build)
main.add_command(serve.serve)
main.add_command(schema.schema)
main.add_command(new.new)
main.add_command(guide.guide)
main.add_command(notebooks.notebooks)
main.add_command(slides.slides)
main.add_command(stubs.stubs)
main.add_command(upgrade.upgrade)
# grading: grade, verify, gradebook, report, mistakes, similarity
main.add_command(grade.grade)
main.add_command(verify.verify)
main.add_command(gradebook.gradebook)
main.add_command(report.report)
main.add_command(feedback.feedback)
main.add_command(mistakes.mistakes)
main.add_command(similarity.similarity)
# quizzes and exports
main.add_command(quiz.quiz)
main.add_command(export.export)
main.add_command(service.service)


# A grading package (coursegen/exports/package.py) ships this file and commands/ as `coursegen_cli`
# beside the grader and the course, without the rest of `coursegen`: its `coursegen` command has
# only the commands that work there (tests/export/test_package_commands.py runs them in one).
GRADING_PACKAGE_COMMANDS = ("grade",)


@click.group(cls=Program, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
def grading() -> None:
    """Grade submissions against this package's course (the rest of coursegen is not installed here)."""


for _name in GRADING_PACKAGE_COMMANDS:
    grading.add_command(main.commands[_name])


if __name__ == "__main__":
    main()
