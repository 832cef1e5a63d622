"""`coursegen notebooks`: the exercise notebooks (student and instructor)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._common import fail_on_content_errors, languages_option, lessons_option, output_folder_option, root_option

if TYPE_CHECKING:
    from coursegen.schema import Language


@click.command()
@root_option
@output_folder_option("Folder to write <lang>/<lesson>.ipynb into.  [default: <root>/_notebooks]")
@click.option(
    "--solutions",
    is_flag=True,
    help="Also write the instructor notebooks <lesson>-solution.ipynb (reference solutions filled in).",
)
@click.option("--only-solutions", is_flag=True, help="Write only the instructor notebooks.")
@lessons_option
@languages_option
@fail_on_content_errors
def notebooks(
    root: Path,
    out_dir: Path | None,
    solutions: bool,
    only_solutions: bool,
    lessons: tuple[str, ...],
    languages: tuple[Language, ...],
) -> None:
    """Write the exercise notebooks of every lesson with exercises.

    Student notebooks hold the stubs and public self-checks; instructor notebooks (--solutions)
    hold the reference solutions and must not be published. `coursegen build` already puts the
    student notebooks into _site/notebooks/; this command is for the instructor's copy.
    """
    from coursegen.loader import load_course
    from coursegen.notebooks import write_notebook_folder

    loaded = load_course(root)
    written = write_notebook_folder(
        loaded,
        out_dir or root / "_notebooks",
        students=not only_solutions,
        solutions=solutions or only_solutions,
        lessons=lessons or None,
        languages=languages or None,
        cache_dir=root / ".coursegen-cache",
    )
    for path in written:
        click.echo(str(path))
    click.echo(f"Wrote {len(written)} notebook(s).", err=True)
