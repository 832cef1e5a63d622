"""What `coursegen report` and `coursegen gradebook export --format ...` do, returning exit codes
(0 written, 2 could not run). Kept out of cli.py so that the command line stays thin."""

from __future__ import annotations

from pathlib import Path

import click

EXIT_OK, EXIT_CANNOT_RUN = 0, 2


def _error(command: str, message: str) -> int:
    click.echo(f"coursegen {command}: error: {message}", err=True)
    return EXIT_CANNOT_RUN


def run_report(
    gradebook: Path,
    quiz_gradebooks: list[Path],
    output: Path,
    root: Path,
    assignment: str | None = None,
    definition: str | None = None,
) -> int:
    from coursegen.errors import ContentError, ContentErrors
    from grader.assignments import AssignmentError
    from grader.gradebook import GradebookError

    from . import build_report
    from .quizdata import QuizDataError
    from .render import ReportError

    try:
        done = build_report(
            gradebook, output, quiz_gradebooks=quiz_gradebooks, root=root, assignment=assignment, definition=definition
        )
    except (GradebookError, QuizDataError, ReportError, AssignmentError) as exc:
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
    *,
    title: str | None = None,
    definition: str | None = None,
    root: Path | None = None,
) -> int:
    import sys

    from grader.assignments import AssignmentError
    from grader.atomic import write_atomically
    from grader.course import Course, current
    from grader.gradebook import Gradebook, GradebookError
    from grader.lms_export import LmsExportError, export, read_lms_roster

    try:
        entries = read_lms_roster(roster) if roster else None
        if fmt != "csv" and entries is None:
            raise LmsExportError(
                f"--format {fmt} needs --roster (student,lms_id): the LMS knows students by its own ids"
            )
        with Gradebook(path, create=False, read_only=True) as book:
            runs = book.runs()
            stored = book.definitions()
        chosen, column = assignment_to_show(
            runs, stored, assignment, definition, root, need_one=fmt != "csv" and title is None, command=fmt
        )
        if title is not None:
            column = title
        if chosen is not None:
            click.echo(f"gradebook export: {chosen.describe()}", err=True)
        text = export(
            runs,
            fmt,
            exercises=[e.name for e in (Course.load(root) if root is not None else current()).registry.exercises],
            roster=entries,
            assignment=column,
            assignment_id=assignment_id,
            moodle_id=moodle_id,
            out_of=out_of,
            definition=chosen,
        )
    except (GradebookError, LmsExportError, AssignmentError) as exc:
        return _error("gradebook export", str(exc))
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def assignment_to_show(
    runs, stored, assignment: str | None, prefix: str | None, root: Path | None, *, need_one: bool, command: str = ""
):
    """(definition, column title) of the assignment an export or report shows.

    With `assignment`: its definition in the gradebook (grader.assignments.pick_definition), and
    its title from content/course.yaml (its id if the course no longer has it; a note says when
    the course now defines it differently). Without: the one assignment the gradebook's runs were
    graded against, if there is exactly one; (None, None) when none was (a gradebook of runs
    graded without --assignment; each student is then out of what they handed in, and a note says
    so), an error when several were, or none was and `need_one` (an LMS format without --title)."""
    from grader.assignments import AssignmentError, pick_definition

    if prefix is not None and assignment is None:
        raise AssignmentError("--definition chooses a definition of an assignment: give --assignment ID")
    if assignment is None:
        graded = sorted({r.get("assignment") for r in runs if r.get("assignment")})
        if len(graded) > 1:
            raise AssignmentError(f"give --assignment ID; the gradebook holds runs of {', '.join(graded)}")
        if need_one and not graded:
            raise AssignmentError(
                f"--format {command} needs --assignment ID, the course assignment whose grades the LMS imports "
                "(this gradebook holds no run graded with --assignment: --title NAME exports its runs as they "
                "are, each student out of what they handed in)"
            )
        if not graded:
            if runs:
                click.echo(
                    "gradebook export: note: no run was graded against an assignment; each student is out of "
                    "what they handed in (grade with --assignment ID for one maximum)",
                    err=True,
                )
            return None, None
        assignment = graded[0]
    chosen = pick_definition(runs, stored, assignment, prefix)
    column = assignment
    if root is not None and (Path(root) / "content" / "course.yaml").exists():
        from coursegen.assignments import read_assignments
        from coursegen.errors import ContentError, ContentErrors
        from grader.assignments import check_points, resolve

        try:
            course = {a.id: a for a in read_assignments(root)}
        except (ContentError, ContentErrors):
            course = {}
        if assignment in course:
            column = course[assignment].title
            try:
                now = resolve(course[assignment], check_points(Path(root) / "grader" / "checks"))
            except AssignmentError:
                now = None
            if now is not None and now.hash != chosen.hash:
                click.echo(
                    f"gradebook export: note: showing the stored {chosen.describe()}; content/course.yaml now "
                    f"defines {now.describe()} (re-grade with --assignment {assignment} --new-definition)",
                    err=True,
                )
    return chosen, column
