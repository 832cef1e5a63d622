"""`coursegen report`: the class report (static HTML) from the gradebooks."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option


@click.command("report")
@click.option(
    "--gradebook",
    "gradebook_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The grading gradebook (written by `coursegen grade`).",
)
@click.option(
    "--quiz-gradebook",
    "quiz_gradebooks",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A gradebook with quiz results (`coursegen quiz grade --gradebook`); repeatable.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write (DIR/index.html); replaced only if a previous report.",
)
@click.option(
    "--assignment",
    metavar="ID",
    help="Only the runs graded against this course assignment (`coursegen grade --assignment ID`), "
    "every student out of its maximum.",
)
@click.option("--definition", metavar="HASH", help="With --assignment: this stored definition of it (a hash prefix).")
@click.option(
    "--similarity",
    "similarity_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder `coursegen similarity` wrote: its flagged pairs and clusters, linked to its evidence page.",
)
@click.option(
    "--proposals",
    "proposals_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder `coursegen mistakes propose` wrote: each proposed mistake linked to its draft.",
)
@root_option
def report(
    gradebook_path, quiz_gradebooks, output, assignment, definition, similarity_dir, proposals_dir, root
) -> None:
    """The class report: misconceptions ranked, per-exercise scores and checks, problems, quiz
    statistics and a page per student. Static HTML, English and Chinese, opens from file://.

    \b
    Example: coursegen report --gradebook gradebook.sqlite --quiz-gradebook quizzes.sqlite -o report
    """
    if definition is not None and assignment is None:
        raise click.UsageError("--definition chooses a definition of an assignment: give --assignment ID")
    sys.exit(
        run_report(
            gradebook_path, list(quiz_gradebooks), output, root, assignment, definition, similarity_dir, proposals_dir
        )
    )


def run_report(
    gradebook: Path,
    quiz_gradebooks: list[Path],
    output: Path,
    root: Path,
    assignment: str | None = None,
    definition: str | None = None,
    similarity: Path | None = None,
    proposals: Path | None = None,
) -> int:
    """What `coursegen report` does once its options are read; the exit status."""
    from coursegen.errors import ContentError, ContentErrors
    from coursegen.report import build_report

    # the gradebook's, the quiz gradebooks', the report's errors: coursegen/cli.py's Program says them
    try:
        done = build_report(
            gradebook,
            output,
            quiz_gradebooks=quiz_gradebooks,
            root=root,
            assignment=assignment,
            definition=definition,
            similarity=similarity,
            proposals=proposals,
        )
    except ContentError as exc:  # the course is the input, but here the report cannot run (2, not 1)
        return cannot_run("report", f"the course at {root} cannot be read: {exc}")
    except ContentErrors as exc:
        return cannot_run("report", f"the course at {root} cannot be read: {exc}")
    click.echo(
        f"wrote {output}/index.html ({done.students} students, {done.submissions} submissions, "
        f"{done.quizzes} quiz(zes), {done.files} files)",
        err=True,
    )
    return EXIT_OK
