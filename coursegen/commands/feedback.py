"""`coursegen feedback`: one self-contained HTML feedback file per student of an assignment."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option


@click.command("feedback")
@click.option(
    "--gradebook",
    "gradebook_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The grading gradebook (written by `coursegen grade --assignment ID`).",
)
@click.option("--assignment", required=True, metavar="ID", help="The course assignment whose feedback to write.")
@click.option("--definition", metavar="HASH", help="This stored definition of the assignment (a hash prefix).")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write: one <student>.html per student (created; a previous feedback folder is replaced).",
)
@root_option
def feedback(gradebook_path, assignment, definition, output, root) -> None:
    """One HTML file per student: score, every check with its message and hints, hidden checks as
    passed/failed only, nothing about other students; for the LMS's feedback upload or an e-mail merge
    (`coursegen feedback --gradebook GB --assignment ID -o DIR`).
    """
    sys.exit(run_feedback(gradebook_path, assignment, definition, output, root))


def run_feedback(gradebook: Path, assignment: str, prefix: str | None, output: Path, root: Path) -> int:
    from grader.atomic import staged_folder
    from grader.reporting.assignments import pick_definition
    from grader.reporting.feedback_files import feedback_files
    from grader.reporting.gradebook import Gradebook

    # a gradebook or an assignment that cannot be read: coursegen/cli.py's Program says so (exit 2)
    with Gradebook(gradebook, create=False, read_only=True) as book:
        runs = book.runs()
        definition = pick_definition(runs, book.definitions(assignment), assignment, prefix)
        results = book.latest_results()
        lateness = book.lateness(definition.assignment, definition.hash)
    title = _title(root, assignment)
    files = feedback_files(results, definition, title, lateness)
    if not files:
        return cannot_run("feedback", f"no student was graded against {definition.describe()}")
    marker = ".coursegen-feedback"
    if output.exists() and any(output.iterdir()) and not (output / marker).exists():
        return cannot_run("feedback", f"{output}: folder is not empty and was not written by coursegen feedback")
    with staged_folder(output.resolve(), mode=None) as staging:
        for name, text in sorted(files.items()):
            (staging / name).write_text(text, encoding="utf-8")
        (staging / marker).write_text("written by `coursegen feedback`; safe to delete\n", encoding="utf-8")
    click.echo(f"wrote {len(files)} feedback file(s) to {output}", err=True)
    return EXIT_OK


def _title(root: Path, assignment: str) -> str:
    """The assignment's title from content/course.yaml, else its id."""
    try:
        from coursegen.assignments import read_assignments

        for known in read_assignments(root):
            if known.id == assignment:
                return known.title
    except Exception:  # noqa: BLE001 - a course that cannot be read still gets its feedback, titled by id
        pass
    return assignment
