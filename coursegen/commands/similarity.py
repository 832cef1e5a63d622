"""`coursegen similarity`: pairs of students whose submissions share more than independent students do.

    coursegen similarity SUBMISSIONS --gradebook gradebook.sqlite [--assignment ID] -o OUTDIR

after `coursegen grade SUBMISSIONS --gradebook gradebook.sqlite` writes OUTDIR/similarity.json
(`{"students", "calibration", "pairs": [{"students": [A, B], "score", "flagged", "evidence"}],
"clusters", "notes"}`, students named as in the gradebook, flagged pairs first) and the evidence
page OUTDIR/index.html (OUTDIR/zh/index.html in Chinese); coursegen/similarity/__init__.py says how
pairs are scored and flagged. OUTDIR is replaced only when it is empty or holds a previous
similarity.json. Exit status: 0 written (also when nothing is flagged), 2 when nothing could be written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option

MARKER = "similarity.json"


@click.command("similarity")
@click.argument("submissions", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--gradebook",
    "gradebook_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The gradebook the batch was graded into (`coursegen grade SUBMISSIONS --gradebook ...`).",
)
@click.option("--assignment", metavar="ID", default=None, help="Only the runs graded against this assignment.")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write: similarity.json and the evidence page index.html (+ zh/index.html).",
)
@root_option
def similarity(submissions: Path, gradebook_path: Path, assignment: str | None, output: Path, root: Path) -> None:
    """Flag pairs whose code and behaviour agree beyond what independent students of this class show.

    \b
    Example: coursegen similarity submissions/ --gradebook gradebook.sqlite -o similarity
    """
    sys.exit(run_similarity(root, submissions, gradebook_path, output, assignment))


def run_similarity(root: Path, submissions: Path, gradebook_path: Path, output: Path, assignment: str | None) -> int:
    """What `coursegen similarity` does once its options are read; the exit status."""
    import json

    from coursegen.similarity import analyse
    from coursegen.similarity.page import render_pages
    from grader.atomic import staged_folder
    from grader.course import Course
    from grader.reporting.gradebook import Gradebook, GradebookError

    if output.exists() and not output.is_dir():
        return cannot_run("similarity", f"{output} exists and is not a folder")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).is_file():
        return cannot_run("similarity", f"{output} is not empty and holds no {MARKER}: not replacing it")
    try:
        with Gradebook(gradebook_path, create=False, read_only=True) as book:
            runs = book.runs()
    except GradebookError as exc:
        return cannot_run("similarity", str(exc))
    if assignment is not None and not any(r.get("assignment") == assignment for r in runs):
        return cannot_run("similarity", f"{gradebook_path} holds no run graded against the assignment {assignment!r}")
    analysis = analyse(runs, submissions, Course.load(root), assignment)
    with staged_folder(output, label="similarity") as staging:
        text = json.dumps(analysis.to_json(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
        (staging / MARKER).write_text(text, encoding="utf-8")
        for name, page in render_pages(analysis).items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(page, encoding="utf-8")
    click.echo(
        f"wrote {output}/{MARKER}: {len(analysis.flagged)} of {len(analysis.pairs)} pair(s) flagged "
        f"among {len(analysis.programs)} student(s); evidence in {output}/index.html",
        err=True,
    )
    return EXIT_OK
