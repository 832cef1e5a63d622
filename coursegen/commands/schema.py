"""`coursegen schema`: the JSON Schema of lesson and course files."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import root_option


@click.command()
@root_option
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the JSON Schema to this file instead of standard output.",
)
@click.option(
    "--kind",
    type=click.Choice(["lesson", "course"]),
    default="lesson",
    show_default=True,
    help="lesson: content/lessons/*.yaml (course.yaml is in its $defs); course: content/course.yaml.",
)
def schema(root: Path, output: Path | None, kind: str) -> None:
    """Print the JSON Schema of lesson or course files (for editor completion and checking)."""
    from coursegen.jsonschema import json_schema_text

    text = json_schema_text(root, kind)
    if output:
        output.write_text(text, encoding="utf-8")
        click.echo(f"Wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
