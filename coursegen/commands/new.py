"""`coursegen new`: write a new, minimal course."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import fail_on_content_errors


@click.command("new")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@fail_on_content_errors
def new(directory: Path) -> None:
    """Write a new, minimal course into DIRECTORY (one lesson, exercise, mistake, quiz, figure and
    self-check) that `coursegen check`, `verify`, `build` and `grade` accept from inside it; its
    README says what to edit."""
    from coursegen.newcourse import write_new_course

    written = write_new_course(directory)
    click.echo(f"wrote {len(written)} files into {directory}; next: cd {directory} && coursegen check")
