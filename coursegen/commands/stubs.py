"""`coursegen stubs`: the student stubs, generated from the solutions."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import fail_on_content_errors, root_option


@click.command()
@root_option
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 naming every stub that differs from what the solutions generate.",
)
@fail_on_content_errors
def stubs(root: Path, check: bool) -> None:
    """Generate the student stubs exercises/<module>.py from solutions/<module>.py.

    Each `# BEGIN SOLUTION` ... `# END SOLUTION` region becomes `raise NotImplementedError`;
    imports, signatures and docstrings are kept.
    """
    from coursegen.stubs import expected_stubs, stale_stubs, write_stubs

    count = len(expected_stubs(root))
    if check:
        stale = stale_stubs(root)
        for path in stale:
            problem = "differs from" if path.exists() else "is missing; expected"
            click.echo(
                f"{path.relative_to(root)}: {problem} the stub generated from "
                f"solutions/{path.name}; run `coursegen stubs`",
                err=True,
            )
        if stale:
            click.echo(f"{len(stale)} of {count} stub(s) out of date.", err=True)
        else:
            click.echo(f"OK: checked {count} stub(s) in exercises/ against solutions/; all up to date.")
        sys.exit(1 if stale else 0)
    written = write_stubs(root)
    for path in written:
        click.echo(f"wrote {path.relative_to(root)}")
    click.echo(
        f"{len(written)} of {count} stub(s) written; "
        f"{count - len(written)} already up to date (exercises/ from solutions/)."
    )
