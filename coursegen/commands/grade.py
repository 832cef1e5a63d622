"""`coursegen grade`: grade submissions (a file, a folder, a batch) against the course's checks."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import click

from ._common import EXIT_FAILED, EXIT_OK, cannot_run, end_at_once, root_option

if TYPE_CHECKING:
    from grader.reporting.assignments import Definition
    from grader.course import Course


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--module",
    metavar="NAME",
    help="Grade .py files as this exercise module (default: the file's stem, or the module of the names it defines).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "gradescope", "junit", "markdown"]),
    default="text",
    show_default=True,
    help="Report format (gradescope = Gradescope's results.json).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to FILE instead of stdout.",
)
@click.option(
    "--gradebook",
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite gradebook to record runs in and resume from (batch default: gradebook.sqlite).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="Parallel grading processes (batch default: one per "
    "100 submissions, up to the CPU count: starting one costs about as much as grading 100).",
)
@click.option(
    "--shard", metavar="K/N", help="Grade only shard K of N (students assigned by a stable hash of their id)."
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="Seed for the checks' inputs (default: secret and random, "
    "or the one stored in the gradebook). Shards on different machines need the same seed.",
)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True, help="Feedback language.")
@click.option(
    "--fail-under",
    type=click.FloatRange(0, 100),
    metavar="PERCENT",
    help="Exit 1 when any submission scores below PERCENT of its maximum.",
)
@click.option(
    "--roster",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="CSV with columns student,submission mapping file/folder names to student ids.",
)
@click.option(
    "--checks",
    "checks_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Checks folder (default: <root>/grader/checks).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Grade on this Dask cluster (e.g. tcp://HOST:8786) instead of "
    "local workers; needs the 'cluster' extra. The gradebook and reports are written here.",
)
@click.option(
    "--assignment",
    "assignment_id",
    metavar="ID",
    help="Grade every submission against this assignment of content/course.yaml (its exercises, "
    "out of its maximum), whatever the files define; one result per student.",
)
@click.option(
    "--from",
    "from_lms",
    type=click.Choice(["canvas", "gradescope", "moodle", "classroom"]),
    help="PATH is an LMS's bulk download (its zip or the unpacked folder): Canvas 'Download Submissions', "
    "a Gradescope export (submission_metadata.yml), Moodle 'Download all submissions', or a folder of "
    "GitHub Classroom repositories. Students are the LMS's ids (docs/instructors.md).",
)
@click.option(
    "--new-definition",
    is_flag=True,
    help="The assignment's definition changed since the gradebook's runs: re-grade against the new one "
    "(the old runs are kept).",
)
@root_option
def grade(
    paths,
    module,
    fmt,
    output,
    gradebook,
    workers,
    shard,
    seed,
    lang,
    fail_under,
    roster,
    checks_dir,
    scheduler,
    assignment_id,
    from_lms,
    new_definition,
    root,
) -> None:
    """Grade submissions (.py files, notebooks, or folders of them, one per student).

    Student code runs in a sandboxed child process; the verdict is computed here. Exit
    status: 0 when grading ran (whatever the scores; a malformed submission scores zero
    with a one-line reason), 1 with --fail-under and a low score, 2 when grading could not
    run (bad arguments, broken checks, an unusable gradebook).
    """
    if module is not None and assignment_id is not None:
        raise click.UsageError("give --assignment (what the instructor set) or --module, not both")
    if new_definition and assignment_id is None:
        raise click.UsageError("--new-definition re-grades an assignment: give --assignment ID")
    from grader.course import Course

    course = Course.load(root)  # the course every grading process is handed
    if scheduler is None and workers in (None, 1):
        # graded in this process (one file, or a batch small enough for one process): the warm worker
        # imports torch while the grader does (grader/prestart.py). A batch that turns out to need more
        # processes stops it (grader.scaleout.batch); on a cluster (--scheduler) nothing is graded here.
        from grader.prestart import start_early

        start_early(course.preload_modules)
    definition = _assignment_definition("grade", root, assignment_id, checks_dir) if assignment_id else None
    with _arranged_download(list(paths), from_lms) as (paths, arrived):
        status = run_grade(
            arrived=arrived,
            definition=definition,
            new_definition=new_definition,
            paths=list(paths),
            module=module,
            fmt=fmt,
            output=output,
            gradebook=gradebook,
            workers=workers,
            shard=shard,
            seed=seed,
            lang=lang,
            fail_under=fail_under,
            roster=roster,
            checks_dir=checks_dir,
            scheduler=scheduler,
            course=course,
        )
    end_at_once(status)


@contextlib.contextmanager
def _arranged_download(paths: list[Path], from_lms: str | None) -> Iterator[tuple[list[Path], Any]]:
    """The paths to grade: as given, or (--from LMS) the one download laid out as one folder per
    student in a temporary folder (grader/reading/lms_download.py), with what the LMS said."""
    if from_lms is None:
        yield paths, None
        return
    if len(paths) != 1:
        raise click.UsageError("--from reads one download: give its zip or its folder")
    from grader.reading.lms_download import DownloadError, arrange

    with tempfile.TemporaryDirectory(prefix="coursegen-download-") as scratch:
        try:
            arrived = arrange(paths[0], from_lms, Path(scratch) / "arranged")
        except DownloadError as exc:
            sys.exit(cannot_run("grade", str(exc)))
        for note in arrived.notes:
            click.echo(f"note: {note}", err=True)
        yield [arrived.folder], arrived


def _assignment_definition(command: str, root: Path, assignment_id: str, checks_dir: Path | None = None):
    """The definition of a course assignment (in a Classroom grading package, the one it carries),
    or the command ends with status 2 saying why (an AssignmentError: coursegen/cli.py's Program
    says it)."""
    from grader.reporting.assignments import shipped_definition

    shipped = shipped_definition(root, assignment_id)
    if shipped is not None:
        return shipped
    try:
        from coursegen.assignments import definition_for
        from coursegen.errors import ContentError, ContentErrors
    except ImportError:  # a grading package (coursegen/exports/package.py): no course content here
        sys.exit(
            cannot_run(
                command,
                "--assignment reads the course's content/course.yaml, which this grading package does not hold; "
                "grade the assignment with coursegen installed (this package's run_autograder grades it)",
            )
        )

    try:
        return definition_for(root, assignment_id, checks_dir)
    except ContentErrors as exc:  # the course is the input, but here grading cannot run (2, not 1)
        for error in exc.errors:
            click.echo(str(error), err=True)
        sys.exit(cannot_run(command, "the course's assignments cannot be read"))
    except ContentError as exc:
        sys.exit(cannot_run(command, str(exc)))


def _apply_late_policy(
    results: list, definition: Definition, course: Course, roster_times: dict | None, arrived: Any, gradebook
) -> None:
    """The assignment's due date and late policy (content/course.yaml `due:`, `late:`) applied to
    each student's combined result at the time their work arrived: the grading roster's
    `submitted_at` column, else the LMS download's time (Gradescope's created_at, Classroom's last
    commit), else Canvas's LATE mark. Each result carries its lateness (its `score` stays the raw
    score) and the gradebook keeps it apart (lateness table). Nothing happens without `due:`."""
    try:
        from coursegen.assignments import read_assignments
    except ImportError:  # a grading package: no course.yaml, no due date (the LMS applies its own policy)
        return
    from grader.reporting.assignments import find
    from grader.reporting.gradebook import Gradebook
    from grader.reporting.lateness import apply_late_policy, describe, times_of

    assignment = find(read_assignments(course.root), definition.assignment)
    if not assignment.due:
        return
    times = times_of(
        [r.student for r in results],
        roster=roster_times,
        lms_times=getattr(arrived, "submitted_at", None),
        late_marked=getattr(arrived, "late_marked", set()),
        lms=getattr(arrived, "lms", ""),
    )
    for result in results:
        when = times[result.student]
        lateness = apply_late_policy(assignment, when.at, result.student, result.score, late_marked=when.late_marked)
        result.lateness = describe(lateness, when)
    if gradebook is None:
        return
    with Gradebook(gradebook) as book:
        for result in results:
            late = result.lateness
            book.record_lateness(
                result.student,
                definition.assignment,
                definition.hash,
                submitted_at=late["submitted_at"],
                late_marked=late["late_marked"],
                late_by=late["late_by_seconds"],
                raw=late["raw"],
                penalty=late["penalty"],
                final=late["final"],
                source=late["source"],
            )


def run_grade(
    *,
    paths: list[Path],
    module: str | None,
    fmt: str,
    output: Path | None,
    gradebook: Path | None,
    workers: int | None,
    shard: str | None,
    seed: int | None,
    lang: str,
    fail_under: float | None,
    roster: Path | None,
    checks_dir: Path | None,
    course: Course,
    scheduler: str | None = None,
    definition: Definition | None = None,
    new_definition: bool = False,
    arrived: Any = None,
) -> int:
    """What `coursegen grade` does once its options are read, for `course`; the exit status.
    `arrived`: what an LMS download said (grader.reading.lms_download.Arranged), or None."""
    from grader.reporting.assignments import per_student
    from grader.atomic import write_atomically

    checks_dir = checks_dir or course.checks_dir
    if not checks_dir.is_dir():
        return cannot_run(
            "grade",
            f"{checks_dir}: no checks folder; give --root the course folder "
            "(it holds content/, exercises/, solutions/, grader/checks/)",
        )
    from grader.reporting import reports
    from grader.scaleout.batch import parse_shard, run_batch

    MODULES = course.registry.modules
    if module is not None and module not in MODULES:
        return cannot_run("grade", f"--module {module!r}: expected one of {', '.join(MODULES)}")
    if scheduler and workers:
        return cannot_run("grade", "give --workers (local processes) or --scheduler (a Dask cluster), not both")
    roster_times = None
    if roster is not None and definition is not None:  # checked before anything is graded
        from grader.reporting.lateness import LatePolicyError, read_submitted_at

        try:
            roster_times = read_submitted_at(roster)
        except LatePolicyError as exc:
            return cannot_run("grade", str(exc))
    batch = len(paths) > 1 or any(p.is_dir() for p in paths)
    if batch and gradebook is None:
        gradebook = Path("gradebook.sqlite")
    try:
        shard_spec = parse_shard(shard) if shard else None
        if shard_spec and seed is None and not (gradebook and gradebook.exists()):
            return cannot_run(
                "grade",
                "--shard needs --seed (or a gradebook holding the batch seed) so that every "
                "shard draws the same inputs",
            )
        from grader.scaleout.executors import Dask, LocalPool
        from grader.scaleout.run import GradingRun

        run = GradingRun(
            course=course,
            seed=seed,
            lang=lang,
            definition=definition,
            new_definition=new_definition,
            checks_dir=checks_dir,
            module=module,
            roster=roster,
            shard=shard_spec,
            hide=(str(output.resolve()),) if output else (),  # the course's root: hidden by its sandbox
        )
        executor = Dask(scheduler) if scheduler else LocalPool(workers or (None if batch else 1))
        results = run_batch(paths, run, executor, gradebook=gradebook, progress=batch)
        if definition is not None:  # one result per student, out of the assignment's maximum
            results = per_student(results, definition)
            batch = batch or len(results) > 1
            _apply_late_policy(results, definition, course, roster_times, arrived, gradebook)
    except ValueError as exc:  # the batch's, gradebook's, checks' errors: coursegen/cli.py's Program says them
        return cannot_run("grade", str(exc))
    if not results and not shard_spec:
        return cannot_run(
            "grade",
            f"no submissions (.py or .ipynb files, or student folders) under {', '.join(str(p) for p in paths)}",
        )
    report = reports.render(results[0] if len(results) == 1 and not batch else results, fmt, course=course)
    if output:
        write_atomically(output, report)
        click.echo(f"graded {len(results)} submission(s); wrote {output}", err=True)
    else:
        sys.stdout.write(report)
    if fail_under is not None:
        low = [r for r in results if r.max_score <= 0 or 100.0 * r.score / r.max_score < fail_under]
        if low:
            click.echo(f"{len(low)} submission(s) scored below {fail_under:g}%", err=True)
            return EXIT_FAILED
    return EXIT_OK
