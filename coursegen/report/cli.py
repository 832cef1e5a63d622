"""What `coursegen report` and `coursegen gradebook export --format ...` do, returning exit codes
(0 written, 2 could not run). Kept out of cli.py so that the command line stays thin."""

from __future__ import annotations

from pathlib import Path

import click

EXIT_OK, EXIT_CANNOT_RUN = 0, 2


def _error(command: str, message: str) -> int:
    click.echo(f"coursegen {command}: error: {message}", err=True)
    return EXIT_CANNOT_RUN


def run_report(gradebook: Path, quiz_gradebooks: list[Path], output: Path, root: Path) -> int:
    from coursegen.errors import ContentError, ContentErrors
    from grader.gradebook import GradebookError

    from . import build_report
    from .quizdata import QuizDataError
    from .render import ReportError

    try:
        done = build_report(gradebook, output, quiz_gradebooks=quiz_gradebooks, root=root)
    except (GradebookError, QuizDataError, ReportError) as exc:
        return _error("report", str(exc))
    except (ContentError, ContentErrors) as exc:
        return _error("report", f"the course at {root} cannot be read: {exc}")
    click.echo(
        f"wrote {output}/index.html ({done.students} students, {done.submissions} submissions, "
        f"{done.quizzes} quiz(zes), {done.files} files)",
        err=True,
    )
    return EXIT_OK


def run_lms_export(
    path: Path,
    output: Path | None,
    fmt: str,
    roster: Path | None,
    assignment: str | None,
    assignment_id: str | None,
    moodle_id: str,
    out_of: float | None,
) -> int:
    import sys

    from exercises.registry import EXERCISES
    from grader.atomic import write_atomically
    from grader.gradebook import Gradebook, GradebookError
    from grader.lms_export import LmsExportError, export, read_lms_roster

    try:
        entries = read_lms_roster(roster) if roster else None
        with Gradebook(path, create=False, read_only=True) as book:
            runs = book.runs()
        text = export(
            runs,
            fmt,
            exercises=[e.name for e in EXERCISES],
            roster=entries,
            assignment=assignment,
            assignment_id=assignment_id,
            moodle_id=moodle_id,
            out_of=out_of,
        )
    except (GradebookError, LmsExportError) as exc:
        return _error("gradebook export", str(exc))
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
