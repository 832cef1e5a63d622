"""`coursegen export classroom|gradescope`: a lesson's autograder for GitHub Classroom or Gradescope.

Both commands share `export_options` (--lang, --root, content errors, an ExportError as
status 2 with nothing written): each states only its own options and returns the line to print.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Callable

import click

from ._common import fail_on_content_errors, root_option


@click.group()
def export() -> None:
    """Export a lesson's autograder to GitHub Classroom or Gradescope. / 导出评分器。"""


def export_options(*, lang_help: str) -> Callable[[Callable[..., str]], Callable[..., None]]:
    """What both exports share: `--lang` (described by `lang_help`) and `--root` after the
    command's own options, and the flow: the decorated function writes the export and returns
    the line to print; an ExportError prints `error: ...` and `nothing was written.`, exit 2."""

    def decorate(make: Callable[..., str]) -> Callable[..., None]:
        @functools.wraps(make)
        def run(**options) -> None:
            from coursegen.exports.files import ExportError

            try:
                message = make(**options)
            except ExportError as exc:
                click.echo(f"error: {exc}", err=True)
                click.echo("nothing was written.", err=True)
                sys.exit(2)
            click.echo(message)

        lang = click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True, help=lang_help)
        return lang(root_option(fail_on_content_errors(run)))

    return decorate


@export.command("classroom")
@click.option("--lesson", "lesson_id", help="The lesson id (a name in content/course.yaml): its notebook.")
@click.option(
    "--assignment",
    "assignment_id",
    metavar="ID",
    help="Instead of --lesson: a course assignment (content/course.yaml `assignments:`): its lessons' "
    "notebooks, and every .py/.ipynb committed graded as `coursegen grade --assignment` grades a student.",
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write the starter repository into (created; an earlier export is replaced).",
)
@export_options(lang_help="Language of the student notebook and of the feedback.")
def export_classroom(lesson_id: str | None, assignment_id: str | None, out_dir: Path, lang: str, root: Path) -> str:
    """A GitHub Classroom starter repository: the lesson's notebook (or the assignment's lessons'
    notebooks), a bilingual README and a workflow that runs `coursegen grade` on every push (public
    checks only, expected values precomputed; feedback, not the grade). It contains no solution,
    mistake hint or hidden check.

    \b
    Example: coursegen export classroom --lesson LESSON -o starter
             coursegen export classroom --assignment ASSIGNMENT -o starter
    """
    from coursegen.exports.classroom import export_classroom as run
    from coursegen.exports.files import ExportError

    if (lesson_id is None) == (assignment_id is None):
        raise ExportError("give --lesson ID or --assignment ID (one of them)")
    done = run(root, lesson_id, out_dir, lang=lang, assignment_id=assignment_id)
    return f"wrote {done.out_dir} ({done.notebook}, {done.checks} public checks with precomputed values)"


@export.command("gradescope")
@click.option("--lesson", "lesson_id", help="The lesson id (a name in content/course.yaml): its exercises.")
@click.option(
    "--assignment",
    "assignment_id",
    metavar="ID",
    help="Instead of --lesson: a course assignment (content/course.yaml `assignments:`).",
)
@click.option(
    "-o",
    "--output",
    "zip_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The autograder zip to write (e.g. autograder.zip).",
)
@export_options(lang_help="Language of the feedback students read on Gradescope.")
def export_gradescope(lesson_id: str | None, assignment_id: str | None, zip_path: Path, lang: str, root: Path) -> str:
    """A Gradescope autograder zip (setup.sh, run_autograder at its root) with the full grader:
    hidden checks report with visibility "after_due_date". Deterministic (same input, same bytes).

    \b
    Example: coursegen export gradescope --lesson LESSON -o autograder.zip
    (or --assignment ID: the zip grades that assignment's exercises, out of its maximum)
    """
    from coursegen.exports.gradescope import export_gradescope as run

    done = run(root, lesson_id, zip_path, lang=lang, assignment_id=assignment_id)
    return f"wrote {done.zip_path} ({done.entries} files); upload it as the assignment's autograder"
