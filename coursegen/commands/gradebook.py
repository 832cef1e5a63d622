"""`coursegen gradebook export|merge`: read and combine gradebooks, return grades to an LMS."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option


@click.group()
def gradebook() -> None:
    """Read and combine gradebooks (SQLite files written by `coursegen grade`)."""


@gradebook.command("export")
@click.option("--csv", "as_csv", is_flag=True, help="Export as CSV (one row per submission, latest run).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["canvas", "moodle", "csv"]),
    default=None,
    help="Grade return: Canvas or Moodle gradebook import CSV (needs --roster and --assignment), or a "
    "plain CSV with one column per exercise (docs/instructors.md lists the columns).",
)
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="CSV `student,lms_id[,name,section,sis_user_id,sis_login_id]` mapping student ids to LMS ids.",
)
@click.option(
    "--assignment",
    metavar="ID",
    help="The course assignment (content/course.yaml) to export: every student out of its maximum; "
    "its title names the LMS grade column.",
)
@click.option("--title", help="The LMS grade column's title instead of the assignment's (Canvas / Moodle).")
@click.option(
    "--definition",
    metavar="HASH",
    help="Show the runs graded against this stored definition of the assignment (a hash prefix), "
    "when a gradebook holds several.",
)
@click.option("--assignment-id", help="Canvas: the assignment's id, so the column is 'TITLE (ID)'.")
@click.option(
    "--moodle-id",
    type=click.Choice(["idnumber", "email", "username"]),
    default="idnumber",
    show_default=True,
    help="Moodle: the user field the roster's lms_id holds.",
)
@click.option("--out-of", type=float, help="Rescale each total to this many points (the LMS assignment's).")
@click.option(
    "--gradebook",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("gradebook.sqlite"),
    show_default=True,
    help="The gradebook to read.",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE instead of stdout."
)
@root_option
def gradebook_export(
    as_csv, fmt, roster, assignment, title, definition, assignment_id, moodle_id, out_of, path, output, root
) -> None:
    """Export the latest run of every submission (--csv), or the grades for an LMS (--format).

    \b
    Example: coursegen gradebook export --format canvas --roster lms.csv --assignment LESSON -o canvas.csv
    """
    if fmt is None and not as_csv:
        raise click.UsageError("give --csv or --format canvas|moodle|csv")
    if fmt is not None:
        sys.exit(
            run_lms_export(
                path,
                output,
                fmt,
                roster,
                assignment,
                assignment_id,
                moodle_id,
                out_of,
                title=title,
                definition=definition,
                root=root,
            )
        )
    sys.exit(run_gradebook_export(path, output))


@gradebook.command("merge")
@click.argument("first", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("second", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The merged gradebook to write (must not exist).",
)
def gradebook_merge(first, second, output) -> None:
    """Merge two gradebooks (e.g. shards of one batch) into a new one."""
    sys.exit(run_gradebook_merge(first, second, output))


def run_lms_export(
    path: Path,
    output: Path | None,
    fmt: str,
    roster: Path | None,
    assignment: str | None,
    assignment_id: str | None,
    moodle_id: str,
    out_of: float | None,
    *,
    title: str | None = None,
    definition: str | None = None,
    root: Path,
) -> int:
    """`coursegen gradebook export --format canvas|moodle|csv` of the course at `root`; the exit status."""
    from coursegen.report.shown_assignment import assignment_to_show
    from grader.course import Course
    from grader.atomic import write_atomically
    from grader.reporting.gradebook import Gradebook
    from grader.reporting.lms_export import LmsExportError, export, read_lms_roster

    # a gradebook, roster or assignment that cannot be read: coursegen/cli.py's Program says so (exit 2)
    entries = read_lms_roster(roster) if roster else None
    if fmt != "csv" and entries is None:
        raise LmsExportError(f"--format {fmt} needs --roster (student,lms_id): the LMS knows students by its own ids")
    with Gradebook(path, create=False, read_only=True) as book:
        runs = book.runs()
        stored = book.definitions()
        chosen, column = assignment_to_show(
            runs, stored, assignment, definition, root, need_one=fmt != "csv" and title is None, command=fmt
        )
        lateness = book.lateness(chosen.assignment, chosen.hash) if chosen is not None else {}
    if title is not None:
        column = title
    if chosen is not None:
        click.echo(f"gradebook export: {chosen.describe()}", err=True)
    if fmt == "moodle" and entries is not None:
        from grader.reporting.lms_export import moodle_id_warnings

        for warning in moodle_id_warnings(entries, moodle_id):
            click.echo(f"gradebook export: warning: {warning}", err=True)
    text = export(
        runs,
        fmt,
        exercises=[e.name for e in Course.load(root).registry.exercises],
        roster=entries,
        assignment=column,
        assignment_id=assignment_id,
        moodle_id=moodle_id,
        out_of=out_of,
        definition=chosen,
        lateness=lateness or None,
    )
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def run_gradebook_export(path: Path, output: Path | None) -> int:
    """`coursegen gradebook export --csv`; the exit status."""
    from grader.atomic import write_atomically
    from grader.reporting.gradebook import Gradebook, GradebookError

    try:
        with Gradebook(path, create=False, read_only=True) as book:
            text = book.export_csv()
    except GradebookError as exc:
        return cannot_run("gradebook export", str(exc))
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def run_gradebook_merge(first: Path, second: Path, output: Path) -> int:
    """`coursegen gradebook merge`; the exit status."""
    from grader.reporting.gradebook import GradebookError, merge

    try:
        count = merge(first, second, output)
    except GradebookError as exc:
        return cannot_run("gradebook merge", str(exc))
    click.echo(f"wrote {output} with {count} run(s)", err=True)
    return EXIT_OK
