"""`coursegen build`: check the content, run the examples, write the site."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import end_at_once, fail_on_content_errors, output_folder_option, root_option


@click.command()
@root_option
@output_folder_option("Where to write the site.  [default: <root>/_site]")
@click.option(
    "--quiet", is_flag=True, help="No progress bars: only the summary (its last lines: each claim's values per seed)."
)
@fail_on_content_errors
def build(root: Path, out_dir: Path | None, quiet: bool) -> None:
    """Check the content, run the code examples, draw the figures and write the site.

    The site is built in a temporary folder and replaces the old one only when complete;
    on any error nothing is written and the exit status is 1.
    """
    from coursegen.build import build_site

    report = build_site(root, out_dir or root / "_site", progress=not quiet)
    click.echo(report.summary())
    end_at_once(0)
