"""`coursegen mistakes propose`: draft catalogue entries from the wrong answers a class shares.

    coursegen mistakes propose --gradebook gradebook.sqlite -o proposals [--submissions FOLDER]

writes one draft mistake per group of at least --min-students students and proposals.json
(coursegen/mistake_drafts.py says what they hold).
Exit status: 0 written (also when no group was found), 2 when nothing could be written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option


@click.group("mistakes", help="The catalogue of typical mistakes (solutions/mistakes/).")
def mistakes() -> None:
    pass


@mistakes.command("propose")
@click.option(
    "--gradebook",
    "gradebook_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The grading gradebook of a batch (written by `coursegen grade`).",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write: one draft per group and proposals.json (replaced only if a previous proposal).",
)
@click.option(
    "--submissions",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The batch folder the gradebook's submission paths are relative to (default: the current folder).",
)
@click.option(
    "--min-students",
    type=click.IntRange(min=2),
    default=2,
    show_default=True,
    help="The smallest group worth a draft.",
)
@root_option
def propose_command(
    gradebook_path: Path, output: Path, submissions: Path | None, min_students: int, root: Path
) -> None:
    """Propose new catalogued mistakes from the wrong answers students share.

    \b
    Example: coursegen mistakes propose --gradebook gradebook.sqlite -o proposals --submissions submissions/
    """
    sys.exit(run_propose(root, gradebook_path, output, submissions, min_students))


def run_propose(root: Path, gradebook_path: Path, output: Path, submissions: Path | None, min_students: int = 2) -> int:
    """What `coursegen mistakes propose` does once its options are read, for the course at `root`;
    the exit status."""
    from coursegen.mistake_drafts import MARKER, output_problem, write_drafts
    from grader.course import Course
    from grader.reporting.gradebook import Gradebook, GradebookError
    from grader.reporting.proposals import propose

    try:
        with Gradebook(gradebook_path, create=False) as book:
            runs = book.runs()
    except GradebookError as exc:
        return cannot_run("mistakes propose", str(exc))
    problem = output_problem(output)
    if problem:
        return cannot_run("mistakes propose", problem)
    listing = write_drafts(propose(runs, min_students=min_students), output, submissions, Course.load(root))
    students = sum(len(p["students"]) for p in listing)
    click.echo(f"wrote {output}/{MARKER}: {len(listing)} proposed mistake(s) shared by {students} student(s)", err=True)
    return EXIT_OK
