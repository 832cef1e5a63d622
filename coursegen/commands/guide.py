"""`coursegen guide`: the student guide, built from the course."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import fail_on_content_errors, root_option


@click.command("guide")
@root_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the guide to this file (e.g. STUDENTS.md) instead of printing it.",
)
@fail_on_content_errors
def guide(root: Path, output: Path | None) -> None:
    """The student guide, built from the course: how to get the notebooks, what they need
    (`requires:`), the self-check, and the submission route (`submission:` in course.yaml)."""
    from coursegen.newcourse import guide_of

    text = guide_of(root)
    if output is None:
        click.echo(text, nl=False)
    else:
        from grader.atomic import write_atomically

        write_atomically(output, text)
        click.echo(f"wrote {output}", err=True)
