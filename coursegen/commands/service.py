"""`coursegen service`: the grading service (start it, issue and revoke its tokens); docs/service.md."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import click

from ._common import EXIT_OK, cannot_run, root_option

gradebook_option = click.option(
    "--gradebook",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The SQLite gradebook: the service's queue, tokens and every run live in it.",
)


@click.group()
def service() -> None:
    """The grading service: students submit over HTTP and read their grade within seconds."""


@service.command()
@gradebook_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8750, show_default=True)
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Grading processes per language in use (default 1)."
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Grade on the Dask cluster at ADDRESS (tcp://HOST:PORT) instead of local processes: as many "
    "submissions at once as it has worker threads; every worker needs the course at the same path; "
    "needs the 'cluster' extra.",
)
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="TLS certificate.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="TLS private key.")
@click.option(
    "--quota-per-hour",
    type=click.IntRange(min=1),
    default=60,
    show_default=True,
    help="Submissions a student may make to one assignment in any hour (then 429 with Retry-After).",
)
@click.option("--max-bytes", type=click.IntRange(min=1024), default=4 * 1024 * 1024, show_default=True)
@click.option("--max-files", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True, help="Default language.")
@root_option
def start(
    gradebook, host, port, workers, scheduler, certfile, keyfile, quota_per_hour, max_bytes, max_files, lang, root
) -> None:
    """Serve the course's grading over HTTP (binds to 127.0.0.1 unless --host says otherwise)."""
    if bool(certfile) != bool(keyfile):
        sys.exit(cannot_run("service start", "give --certfile and --keyfile together"))
    if scheduler and workers:
        sys.exit(
            cannot_run("service start", "give --workers (local processes) or --scheduler (a Dask cluster), not both")
        )
    from coursegen.assignments import read_assignments
    from coursegen.errors import ContentError, ContentErrors
    from grader.course import Course
    from grader.reporting.assignments import check_points, resolve
    from grader.reporting.gradebook import Gradebook
    from grader.running.grade import new_seed
    from grader.scaleout.grading_process import checks_hash
    from coursegen.service.app import ServiceConfig, course_title, create_app, serve
    from coursegen.service.door import Limits
    from coursegen.service.grading import Graders

    course = Course.load(root)
    try:
        assignments = {a.id: a for a in read_assignments(root)}
        points = check_points(course.checks_dir)
        definitions = {a.id: resolve(a, points) for a in assignments.values()}
    except ContentErrors as exc:  # the course is the input, but here the service cannot run (2, not 1)
        for error in exc.errors:
            click.echo(str(error), err=True)
        sys.exit(cannot_run("service start", "the course's assignments cannot be read"))
    except ContentError as exc:  # an AssignmentError: coursegen/cli.py's Program says it
        sys.exit(cannot_run("service start", str(exc)))
    if not definitions:
        sys.exit(cannot_run("service start", "the course sets no assignment"))
    course_hash = checks_hash(course)
    cluster = None
    if scheduler:  # connected before anything is served: an unreachable scheduler stops the command here
        from grader.scaleout.cluster import ClusterError
        from coursegen.service.on_cluster import ClusterSlots

        try:
            cluster = ClusterSlots(scheduler, course_hash)
        except ClusterError as exc:
            sys.exit(cannot_run("service start", str(exc)))
    with Gradebook(gradebook) as book:  # a GradebookError: coursegen/cli.py's Program says it
        seed = book.ensure_seed(new_seed())
        for definition in definitions.values():
            book.record_definition(definition)
    gradebook = gradebook.resolve()
    uploads = gradebook.parent / f"{gradebook.name}.uploads"
    uploads.mkdir(mode=0o700, exist_ok=True)
    hide = tuple(str(p) for p in (gradebook, *(f"{gradebook}{s}" for s in ("-wal", "-shm", "-journal")), uploads))
    graders = Graders(
        gradebook=gradebook,
        course=course,
        definitions=definitions,
        seed=seed,
        checks_hash=course_hash,
        uploads=uploads,
        workers=workers or 1,
        lang=lang,
        hide=hide,
        due=frozenset(a.id for a in assignments.values() if a.due),
        cluster=cluster,
    )
    config = ServiceConfig(
        gradebook=gradebook,
        uploads=uploads,
        course_title=course_title(root, lang),
        assignments=assignments,
        graders=graders,
        limits=Limits(max_bytes=max_bytes, max_files=max_files, quota_per_hour=quota_per_hour),
        default_lang=lang,
    )
    scheme = "https" if certfile else "http"
    where = f" on the Dask cluster at {scheduler}" if scheduler else ""
    click.echo(f"coursegen service: {scheme}://{host}:{port}/ grading {', '.join(definitions)}{where}", err=True)
    serve(create_app(config), host=host, port=port, certfile=certfile, keyfile=keyfile)


def _roster_students(path: Path) -> list[str]:
    """Student ids from a roster CSV: the `student` column (a batch roster `student,submission`
    works as it is); one id a line without a header otherwise."""
    rows = [r for r in csv.reader(path.read_text(encoding="utf-8-sig").splitlines()) if r and any(c.strip() for c in r)]
    if not rows:
        raise click.UsageError(f"{path}: no student in the roster")
    header = [c.strip().lower() for c in rows[0]]
    if "student" in header:
        column = header.index("student")
        students = [r[column].strip() for r in rows[1:] if len(r) > column and r[column].strip()]
    else:
        students = [r[0].strip() for r in rows if r[0].strip()]
    if "instructor" in students:
        raise click.UsageError(f"{path}: 'instructor' is the instructor token's name, not a student id")
    return list(dict.fromkeys(students))


@service.command()
@gradebook_option
@click.option("--roster", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--no-instructor", is_flag=True, help="Issue no instructor token this time.")
def tokens(gradebook, roster, output, no_instructor) -> None:
    """Issue one token per student of ROSTER (and one for the instructor) into a CSV (mode 0600).

    Only each token's hash is stored; the CSV is the one place the tokens are shown. A student
    who had a token gets a new one and the old one stops working."""
    from grader.atomic import write_atomically
    from grader.reporting.gradebook import Gradebook
    from coursegen.service.store import ServiceStore
    from coursegen.service.tokens import INSTRUCTOR, issue

    students = _roster_students(roster)
    Gradebook(gradebook).close()  # created or migrated as every gradebook
    store = ServiceStore(gradebook)
    lines = io.StringIO()
    writer = csv.writer(lines, lineterminator="\n")
    writer.writerow(["student", "role", "token"])
    for student in students:
        store.revoke(student=student)
        writer.writerow([student, "student", issue(store, student)])
    if not no_instructor:
        store.revoke(student=INSTRUCTOR)
        writer.writerow([INSTRUCTOR, "instructor", issue(store, INSTRUCTOR, "instructor")])
    write_atomically(output, lines.getvalue(), mode=0o600)
    click.echo(
        f"wrote {len(students)} student token(s){'' if no_instructor else ' and an instructor token'} to {output}"
    )
    sys.exit(EXIT_OK)


@service.command()
@gradebook_option
@click.option("--student", help="Revoke every token of this student ('instructor': the instructor's).")
@click.option("--token", help="Revoke this one token.")
def revoke(gradebook, student, token) -> None:
    """Revoke tokens: the next request with them is refused (401)."""
    from coursegen.service.store import ServiceStore

    if bool(student) == bool(token):
        raise click.UsageError("give --student ID or --token TOKEN")
    if not gradebook.is_file():
        sys.exit(cannot_run("service revoke", f"{gradebook}: no such gradebook"))
    store = ServiceStore(gradebook)
    if token:
        parts = token.strip().split(".")
        count = store.revoke(selector=parts[1]) if len(parts) == 3 else 0
    else:
        count = store.revoke(student=student)
    click.echo(f"revoked {count} token(s)")
    sys.exit(EXIT_OK if count else cannot_run("service revoke", "no live token matched"))
