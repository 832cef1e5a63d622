"""What every command shares: the --root option, content errors as exit 1, a command's
"could not run" error as exit 2, and ending the process at once (see coursegen/cli.py's Program).

Exit codes: 0 success; 1 the input (course content, a verification) is wrong;
2 the command could not run (bad arguments, a broken environment).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

EXIT_OK, EXIT_FAILED, EXIT_CANNOT_RUN = 0, 1, 2


class _Ending:
    at_once = False  # set by end_at_once(): see coursegen/cli.py's Program.main


def end_at_once(status: int):
    """End the command with `status`; run as the program, the process ends as soon as its
    output is written and closed (coursegen/cli.py, Program)."""
    _Ending.at_once = True
    sys.exit(status)


def ends_at_once() -> bool:
    """Whether the command that ended asked to end the process at once."""
    return _Ending.at_once


def cannot_run(command: str, message: str) -> int:
    """Print `coursegen COMMAND: error: MESSAGE` on stderr; the exit status 2."""
    click.echo(f"coursegen {command}: error: {message}", err=True)
    return EXIT_CANNOT_RUN


class _OldSpellingHidden(click.Option):
    """An option that still accepts the spelling of an earlier release (`--out`) without showing it
    in --help: `-o/--output` is the one spelling across commands."""

    OLD = ("--out",)

    def get_help_record(self, ctx: click.Context):
        shown, self.opts = self.opts, [o for o in self.opts if o not in self.OLD]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


def output_folder_option(help: str):
    """`-o/--output FOLDER` for a command that writes a folder (`--out` accepted, hidden, for one
    release: it was the spelling of build, notebooks and slides)."""
    return click.option(
        "-o",
        "--output",
        "--out",
        "out_dir",
        cls=_OldSpellingHidden,
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help=help,
    )


def fail_on_content_errors(func):
    """Print ContentError(s) as `file:line:column: message` lines and exit 1."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from coursegen.errors import ContentError, ContentErrors

        try:
            return func(*args, **kwargs)
        except ContentErrors as exc:
            for error in exc.errors:
                click.echo(str(error), err=True)
            click.echo(f"{len(exc.errors)} error(s); nothing was written.", err=True)
            sys.exit(1)
        except ContentError as exc:
            click.echo(str(exc), err=True)
            click.echo("1 error; nothing was written.", err=True)
            sys.exit(1)

    return wrapper


def default_root() -> Path:
    """The course folder without --root: the current folder when it is a course, else the course an
    installed grading package carries (the folder of its importable `exercises` package: a Classroom
    export's `coursegen grade`, run in the student's repository), else the current folder."""
    import importlib.util

    here = Path.cwd()
    if (here / "exercises" / "registry.py").is_file():
        return here
    spec = importlib.util.find_spec("exercises")  # located, not imported
    if spec is not None and spec.origin:
        return Path(spec.origin).resolve().parent.parent
    return here


def _use_root(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    """The course folder a command works on: --root, else default_root(). Nothing is made
    active: each command loads the course from this folder (grader.course.Course.load(root), the
    content with coursegen.loader.load_course(root)) and hands it to what it calls."""
    return value if value is not None else default_root()


# The one --root: the course folder, the same meaning and default on every command.
root_option = click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    callback=_use_root,
    is_eager=True,
    help="The course folder (it holds content/, exercises/, solutions/, grader/checks/); default: the "
    "current folder (where it is no course, the course an installed `coursegen export` grading package carries).",
)

# --lesson ID and --lang for the commands that write per lesson and language (notebooks, slides).
lessons_option = click.option("--lesson", "lessons", multiple=True, metavar="ID", help="Only this lesson (repeatable).")
languages_option = click.option(
    "--lang", "languages", multiple=True, type=click.Choice(["en", "zh"]), help="Only this language (repeatable)."
)
