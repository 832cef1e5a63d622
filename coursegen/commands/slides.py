"""`coursegen slides --pdf`: PDF handouts of the lesson decks."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import (
    end_at_once,
    fail_on_content_errors,
    languages_option,
    lessons_option,
    output_folder_option,
    root_option,
)


@click.command()
@root_option
@click.option("--pdf", is_flag=True, help="Print every deck to PDF (headless Chromium).")
@output_folder_option("Folder to write <lang>/<lesson>.pdf into.  [default: <root>/_handouts]")
@click.option("--notes", is_flag=True, help="Print each slide's speaker notes below it.")
@lessons_option
@languages_option
@fail_on_content_errors
def slides(
    root: Path,
    pdf: bool,
    out_dir: Path | None,
    notes: bool,
    lessons: tuple[str, ...],
    languages: tuple[str, ...],
) -> None:
    """Print the lessons' slide decks as PDF handouts: one slide per page, every answer shown.

    `coursegen build` writes the decks themselves (_site/<lang>/slides/<lesson>.html); this
    command builds the course into a temporary folder and prints each deck with headless
    Chromium into OUT/<lang>/<lesson>.pdf, all files at once (on any error the old folder stays).

    Example: coursegen slides --pdf -o handouts --lesson LESSON --lang en
    """
    if not pdf:
        raise click.UsageError("nothing to do: add --pdf (the HTML decks are written by `coursegen build`)")
    import tempfile

    from coursegen.build import build_site
    from coursegen.slides.pdf import chosen_decks, print_decks

    target = out_dir or root / "_handouts"
    chosen_decks(root, target, list(lessons) or None, list(languages) or None)  # errors before building
    with tempfile.TemporaryDirectory(prefix="coursegen-slides-") as temporary:
        site = Path(temporary) / "_site"
        build_site(root, site, progress=False)
        written = print_decks(
            root,
            site,
            target,
            notes=notes,
            lessons=list(lessons) or None,
            languages=list(languages) or None,
        )
    for path in written:
        click.echo(str(path))
    click.echo(f"Wrote {len(written)} PDF handout(s).", err=True)
    end_at_once(0)
