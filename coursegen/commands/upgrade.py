"""`coursegen upgrade`: migrate a course written for the contract each course used to copy."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import root_option


@click.command()
@root_option
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every file the upgrade would change.")
def upgrade(root: Path, check: bool) -> None:
    """Migrate a course made by an older `coursegen new` to the engine's course contract.

    Its exercises/registry.py takes Exercise from grader.contract, solutions/mistakes/__init__.py
    keeps its docstring only, and imports of the course's own modules become relative
    (`from solutions.mistakes import mistake` becomes `from grader.contract import mistake`).
    References, stubs, checks, lessons and plugins are left as they are.
    """
    from coursegen.upgrade import UpgradeError, apply, plan

    try:
        changes = plan(root)
    except UpgradeError as exc:  # said as `upgrade: ...` (the old wording), not as Program says errors
        click.echo(f"upgrade: {exc}", err=True)
        click.echo("nothing was written.", err=True)
        sys.exit(1)
    for change in changes:
        verb = "would rewrite" if check else "rewrote"
        click.echo(f"{verb} {change.path.relative_to(root)}: {change.why}")
    if not changes:
        click.echo("OK: the course is up to date with the engine's contract; nothing to change.")
        return
    if check:
        click.echo(f"{len(changes)} file(s) to migrate: run `coursegen upgrade`.")
        sys.exit(1)
    apply(changes)
    click.echo(f"{len(changes)} file(s) migrated; run `coursegen verify` to prove the course.")
