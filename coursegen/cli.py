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
from .commands._common import ends_at_once


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
        """Every error of the project's (grader.errors.CoursegenError) that a command does not
        handle itself is printed, located where it knows its place, and ends the command with the
        error's exit status (1: the input is wrong, e.g. a course whose code cannot be loaded;
        2: the command could not run), never with a traceback, whatever the command."""
        from grader.errors import CoursegenError

        try:
            return super().invoke(ctx)
        except CoursegenError as exc:
            lines = exc.lines()
            for line in lines:
                click.echo(line, err=True)
            click.echo(f"{len(lines)} error{'' if len(lines) == 1 else 's'}; nothing was written.", err=True)
            ctx.exit(exc.exit_status)


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


if __name__ == "__main__":
    main()
