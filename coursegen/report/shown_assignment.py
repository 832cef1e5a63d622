"""Which assignment (and stored definition of it) a class report or a grade export shows."""

from __future__ import annotations

from pathlib import Path

import click


def assignment_to_show(
    runs, stored, assignment: str | None, prefix: str | None, root: Path | None, *, need_one: bool, command: str = ""
):
    """(definition, column title) of the assignment an export or report shows.

    With `assignment`: its definition in the gradebook (grader.reporting.assignments.pick_definition), and
    its title from content/course.yaml (its id if the course no longer has it; a note says when
    the course now defines it differently). Without: the one assignment the gradebook's runs were
    graded against, if there is exactly one; (None, None) when none was (a gradebook of runs
    graded without --assignment; each student is then out of what they handed in, and a note says
    so), an error when several were, or none was and `need_one` (an LMS format without --title)."""
    from grader.reporting.assignments import AssignmentError, pick_definition

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
        from grader.reporting.assignments import check_points, resolve

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
