"""`coursegen check`: everything `build` checks that runs no code."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import fail_on_content_errors, root_option


@click.command()
@root_option
@fail_on_content_errors
def check(root: Path) -> None:
    """Check everything `build` checks that runs no code: lessons (YAML, schema, ids,
    translations, links, math), quizzes (answer functions, parameters, answers, distractors),
    exercise names, their stubs, references and check files.

    Mistakes are printed as `file:line:column: message`; the exit status is 1 when there is any.
    Answers that do not compute, failing examples and keys that disagree with their oracle show
    only in `coursegen build` and `coursegen verify`.
    """
    from coursegen.check import check_course

    click.echo(check_course(root).line())
