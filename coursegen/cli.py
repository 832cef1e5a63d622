"""coursegen: build a verified course, grade submissions, generate quizzes.

The command line is thin: each command parses its options and calls one engine
(coursegen.* for building, grader.* for grading). Engines are imported inside the
commands so that `coursegen --help` and a no-change rebuild stay fast (no torch).

Exit codes: 0 success; 1 the input (course content, a verification) is wrong;
2 the command could not run (bad arguments, a broken environment).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from coursegen.schema import Language

_end_at_once = False  # set by end_at_once(): see Program.main


class Program(click.Group):
    """The command group. Run as the program (`coursegen ...`), a command that ends with
    `end_at_once(status)` ends the process as soon as its output is written and closed:
    exit handlers run, but the interpreter is not torn down module by module (with torch and
    pytest loaded that takes longer than the whole of a no-change build). Called with explicit
    arguments (click's CliRunner, other Python code), it behaves like any click group."""

    def main(self, args=None, *rest, **kwargs):
        if args is not None or not kwargs.get("standalone_mode", True):
            return super().main(args, *rest, **kwargs)
        try:
            return super().main(args, *rest, **kwargs)
        except SystemExit as done:
            if not _end_at_once:
                raise
            _exit_now(done.code)


def end_at_once(status: int):
    """End the command with `status` (see Program)."""
    global _end_at_once
    _end_at_once = True
    sys.exit(status)


def _exit_now(code) -> None:
    import atexit
    import os
    import threading

    status = code if isinstance(code, int) else 0 if code is None else 1
    if not isinstance(code, (int, type(None))):
        print(code, file=sys.stderr)
    for thread in threading.enumerate():  # what the interpreter would wait for
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # what Python exits with when flushing fails
    os._exit(status)


@click.group(cls=Program, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="coursegen", prog_name="coursegen")
def main() -> None:
    """Build a verified course (site, notebooks, quizzes) and grade submissions against it."""


def fail_on_content_errors(func):
    """Print ContentError(s) as `file:line:column: message` lines and exit 1."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from coursegen.errors import ContentError, ContentErrors

        try:
            return func(*args, **kwargs)
        except ContentErrors as exc:
            for error in exc.errors:
                click.echo(str(error), err=True)
            click.echo(f"{len(exc.errors)} error(s); nothing was written.", err=True)
            sys.exit(1)
        except ContentError as exc:
            click.echo(str(exc), err=True)
            click.echo("1 error; nothing was written.", err=True)
            sys.exit(1)

    return wrapper


# ---- course: build, check, serve, schema ------------------------------------------------


def _use_root(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    """Every command reads the course's own modules (exercises/, solutions/) from its root.
    Without --root: the current folder when it is a course, else the course the installed
    grading package carries (an exported autograder run from the submission's folder)."""
    from grader.courseroot import CourseRootError, course_root, use_course_root

    if value is None:
        value = course_root()
    try:
        use_course_root(value)
    except CourseRootError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


# The one --root: the course folder, the same meaning and default on every command.
root_option = click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    callback=_use_root,
    is_eager=True,
    help="The course folder (it holds content/, exercises/, solutions/, grader/checks/); default: the "
    "current folder (where it is no course, the course an installed `coursegen export` grading package carries).",
)


@main.command()
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


@main.command()
@root_option
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write the site.  [default: <root>/_site]",
)
@click.option("--quiet", is_flag=True, help="No progress bars, only the summary line.")
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


@main.command()
@root_option
@click.option("--port", type=int, default=8000, show_default=True, help="Port on localhost.")
@click.option("--interval", type=float, default=0.2, show_default=True, help="Seconds between checks for changes.")
def serve(root: Path, port: int, interval: float) -> None:
    """Preview the site on http://localhost:PORT; rebuild (incrementally) when a source changes
    (content/, templates/, exercises/, solutions/, grader/checks/) and reload the open page.
    A failing build shows its errors in the browser until it is fixed. The reload script is
    added by the server only: the built site holds no trace of it."""
    from coursegen.serve import serve as run_server

    run_server(root, port=port, interval=interval)


@main.command()
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
def schema(output: Path | None, kind: str) -> None:
    """Print the JSON Schema of lesson or course files (for editor completion and checking)."""
    from coursegen.jsonschema import json_schema_text

    text = json_schema_text(kind)
    if output:
        output.write_text(text, encoding="utf-8")
        click.echo(f"Wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@main.command("new")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@fail_on_content_errors
def new(directory: Path) -> None:
    """Write a new, minimal course into DIRECTORY (one lesson, exercise, mistake, quiz, figure and
    self-check) that `coursegen check`, `verify`, `build` and `grade` accept from inside it; its
    README says what to edit."""
    from coursegen.newcourse import write_new_course

    written = write_new_course(directory)
    click.echo(f"wrote {len(written)} files into {directory}; next: cd {directory} && coursegen check")


@main.command("guide")
@root_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the guide to this file (e.g. STUDENTS.md) instead of printing it.",
)
@fail_on_content_errors
def guide(root: Path, output: Path | None) -> None:
    """The student guide, built from the course: how to get the notebooks, what they need
    (`requires:`), the self-check, and the submission route (`submission:` in course.yaml)."""
    from coursegen.newcourse import guide_of

    text = guide_of(root)
    if output is None:
        click.echo(text, nl=False)
    else:
        from grader.atomic import write_atomically

        write_atomically(output, text)
        click.echo(f"wrote {output}", err=True)


# ---- notebooks: notebooks --------------------------------------------------------------


@main.command()
@root_option
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to write <lang>/<lesson>.ipynb into.  [default: <root>/_notebooks]",
)
@click.option(
    "--solutions",
    is_flag=True,
    help="Also write the instructor notebooks <lesson>-solution.ipynb (reference solutions filled in).",
)
@click.option("--only-solutions", is_flag=True, help="Write only the instructor notebooks.")
@click.option("--lesson", "lessons", multiple=True, metavar="ID", help="Only this lesson (repeatable).")
@click.option(
    "--lang", "languages", multiple=True, type=click.Choice(["en", "zh"]), help="Only this language (repeatable)."
)
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


# ---- slides: PDF handouts of the lesson decks ------------------------------------------


@main.command()
@root_option
@click.option("--pdf", is_flag=True, help="Print every deck to PDF (headless Chromium).")
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to write <lang>/<lesson>.pdf into.  [default: <root>/_handouts]",
)
@click.option("--notes", is_flag=True, help="Print each slide's speaker notes below it.")
@click.option("--lesson", "lessons", multiple=True, metavar="ID", help="Only this lesson (repeatable).")
@click.option(
    "--lang", "languages", multiple=True, type=click.Choice(["en", "zh"]), help="Only this language (repeatable)."
)
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
    from coursegen.slides.pdf import print_decks

    written = print_decks(
        root,
        out_dir or root / "_handouts",
        notes=notes,
        lessons=list(lessons) or None,
        languages=list(languages) or None,
    )
    for path in written:
        click.echo(str(path))
    click.echo(f"Wrote {len(written)} PDF handout(s).", err=True)
    end_at_once(0)


# ---- grading: grade, verify, gradebook --------------------------------------------------


@main.command()
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
    if scheduler is None and workers in (None, 1):
        # graded in this process (one file, or a batch small enough for one process): the warm worker
        # imports torch while the grader does (grader/prestart.py). A batch that turns out to need more
        # processes stops it (grader.batch); on a cluster (--scheduler) nothing is graded here.
        from grader.prestart import start_early

        start_early()
    from grader.cli_support import run_grade

    definition = _assignment_definition("grade", root, assignment_id, checks_dir) if assignment_id else None
    end_at_once(
        run_grade(
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
            root=root,
        )
    )


def _assignment_definition(command: str, root: Path, assignment_id: str, checks_dir: Path | None = None):
    """The definition of a course assignment, or the command ends with status 2 saying why."""
    from coursegen.assignments import definition_for
    from coursegen.errors import ContentError, ContentErrors
    from grader.assignments import AssignmentError

    try:
        return definition_for(root, assignment_id, checks_dir)
    except ContentErrors as exc:
        for error in exc.errors:
            click.echo(str(error), err=True)
        click.echo(f"coursegen {command}: error: the course's assignments cannot be read", err=True)
    except (ContentError, AssignmentError) as exc:
        click.echo(f"coursegen {command}: error: {exc}", err=True)
    sys.exit(2)


@main.command()
@click.option("--module", "modules", multiple=True, metavar="NAME", help="Verify only this module (repeatable).")
@click.option("--skip-quizzes", is_flag=True, help="Prove the exercises only, not the quiz quality gate.")
@click.option(
    "--all",
    "prove_all",
    is_flag=True,
    help="Prove everything again, ignoring the proof cache (.coursegen-cache/verify/); CI does.",
)
@root_option
def verify(modules, skip_quizzes, prove_all, root) -> None:
    """Prove the course: each reference passes every check, each stub fails every check
    with points, each catalogued mistake fails a check that shows its hint, stubs and
    solutions have the same signatures; then every quiz passes its quality gate (answers
    compute, no distractor equals its answer, enough variants) and every generated key agrees
    with its independent oracle (@oracle in content/plugins/) over the question's whole parameter
    space. Shows progress per module and per quiz on stderr; prints a table; exit 1 on any failure.

    Each proof is cached by the hash of everything it depends on (references, checks, mistakes,
    registry, plugins, quiz files, the engine, library versions): a run re-proves only what
    changed and says how many proofs it reused; --all proves everything again."""
    from grader.cli_support import run_verify, verify_cache

    cache = verify_cache(root, use_cache=not prove_all)
    status = run_verify(list(modules), root=root, cache=cache)
    if not skip_quizzes and not modules and status != 2:
        from coursegen.quiz.verify_cache import verify_quizzes_cached

        problems = verify_quizzes_cached(root, cache, progress=True)
        for problem in problems:
            click.echo(problem, err=True)
        click.echo(
            f"quizzes: {len(problems)} problem(s)"
            if problems
            else "quizzes: every quiz passes the quality gate; every key agrees with its oracle"
        )
        status = max(status, 1 if problems else 0)
    if status != 2:
        click.echo(f"proof cache: {cache.summary}")
    end_at_once(status)


@main.group()
def gradebook() -> None:
    """Read and combine gradebooks (SQLite files written by `coursegen grade`)."""


@gradebook.command("export")
@click.option("--csv", "as_csv", is_flag=True, help="Export as CSV (one row per submission, latest run).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["canvas", "moodle", "csv"]),
    default=None,
    help="Grade return: Canvas or Moodle gradebook import CSV (needs --roster and --assignment), or a "
    "plain CSV with one column per exercise (docs/instructors.md lists the columns).",
)
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="CSV `student,lms_id[,name,section,sis_user_id,sis_login_id]` mapping student ids to LMS ids.",
)
@click.option(
    "--assignment",
    metavar="ID",
    help="The course assignment (content/course.yaml) to export: every student out of its maximum; "
    "its title names the LMS grade column.",
)
@click.option("--title", help="The LMS grade column's title instead of the assignment's (Canvas / Moodle).")
@click.option(
    "--definition",
    metavar="HASH",
    help="Show the runs graded against this stored definition of the assignment (a hash prefix), "
    "when a gradebook holds several.",
)
@click.option("--assignment-id", help="Canvas: the assignment's id, so the column is 'TITLE (ID)'.")
@click.option(
    "--moodle-id",
    type=click.Choice(["idnumber", "email", "username"]),
    default="idnumber",
    show_default=True,
    help="Moodle: the user field the roster's lms_id holds.",
)
@click.option("--out-of", type=float, help="Rescale each total to this many points (the LMS assignment's).")
@click.option(
    "--gradebook",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("gradebook.sqlite"),
    show_default=True,
    help="The gradebook to read.",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE instead of stdout."
)
@root_option
def gradebook_export(
    as_csv, fmt, roster, assignment, title, definition, assignment_id, moodle_id, out_of, path, output, root
) -> None:
    """Export the latest run of every submission (--csv), or the grades for an LMS (--format).

    \b
    Example: coursegen gradebook export --format canvas --roster lms.csv --assignment LESSON -o canvas.csv
    """
    if fmt is None and not as_csv:
        raise click.UsageError("give --csv or --format canvas|moodle|csv")
    if fmt is not None:
        from coursegen.report.cli import run_lms_export

        sys.exit(
            run_lms_export(
                path,
                output,
                fmt,
                roster,
                assignment,
                assignment_id,
                moodle_id,
                out_of,
                title=title,
                definition=definition,
                root=root,
            )
        )
    from grader.cli_support import run_gradebook_export

    sys.exit(run_gradebook_export(path, output))


@main.command("report")
@click.option(
    "--gradebook",
    "gradebook_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The grading gradebook (written by `coursegen grade`).",
)
@click.option(
    "--quiz-gradebook",
    "quiz_gradebooks",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A gradebook with quiz results (`coursegen quiz grade --gradebook`); repeatable.",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write (DIR/index.html); replaced only if a previous report.",
)
@click.option(
    "--assignment",
    metavar="ID",
    help="Only the runs graded against this course assignment (`coursegen grade --assignment ID`), "
    "every student out of its maximum.",
)
@click.option("--definition", metavar="HASH", help="With --assignment: this stored definition of it (a hash prefix).")
@root_option
def report(gradebook_path, quiz_gradebooks, output, assignment, definition, root) -> None:
    """The class report: misconceptions ranked, per-exercise scores and checks, problems, quiz
    statistics and a page per student. Static HTML, English and Chinese, opens from file://.

    \b
    Example: coursegen report --gradebook gradebook.sqlite --quiz-gradebook quizzes.sqlite -o report
    """
    from coursegen.report.cli import run_report

    if definition is not None and assignment is None:
        raise click.UsageError("--definition chooses a definition of an assignment: give --assignment ID")
    sys.exit(run_report(gradebook_path, list(quiz_gradebooks), output, root, assignment, definition))


@gradebook.command("merge")
@click.argument("first", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("second", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The merged gradebook to write (must not exist).",
)
def gradebook_merge(first, second, output) -> None:
    """Merge two gradebooks (e.g. shards of one batch) into a new one."""
    from grader.cli_support import run_gradebook_merge

    sys.exit(run_gradebook_merge(first, second, output))


@main.command()
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


# ---- quizzes: quiz ... ------------------------------------------------------------------


@main.group(invoke_without_command=True)
@root_option
@click.option("--lesson", "-l", default=None, help="Shortcut for `quiz show --lesson L`.")
@click.option("--student", "-s", default=None, help="With --lesson: that student's variant.")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="With --lesson and -o FOLDER: one variant per student.",
)
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Write instead of printing.")
@click.pass_context
def quiz(ctx, root, lesson, student, roster, output) -> None:
    """Quiz variants, exports for Moodle and Canvas, the quality gate and grading.

    `coursegen quiz --lesson L --student ID` is short for `coursegen quiz show --lesson L --student ID`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if lesson is None:
        click.echo(ctx.get_help())
        return
    ctx.invoke(
        quiz_show,
        root=root,
        lesson=lesson,
        student=student,
        roster=roster,
        lang="en",
        fmt="text",
        answers=False,
        output=output,
    )


def _quizzes(root: Path, lessons: tuple[str, ...] | list[str] = ()):
    from coursegen.quiz.load import course_quizzes

    return course_quizzes(root, list(lessons) or None)


@quiz.command("show")
@root_option
@click.option("--lesson", "-l", required=True, help="The lesson id whose quiz to show.")
@click.option("--student", "-s", default=None, help="The student id (the variant depends on it). [default: practice]")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A roster (CSV with a 'student' column, or a YAML list): one variant per student; needs -o DIR.",
)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--answers", is_flag=True, help="Include the answer key (for instructors).")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write to this file (with --roster: this folder, one file per student).",
)
@fail_on_content_errors
def quiz_show(root, lesson, student, roster, lang, fmt, answers, output) -> None:
    """Print or write one student's variant of a lesson's quiz (deterministic per student and quiz)."""
    import json

    from coursegen.quiz.show import read_roster, render_text
    from coursegen.quiz.variants import PRACTICE, make_variant

    if roster and student:
        raise click.UsageError("give --student or --roster, not both")
    if roster and not output:
        raise click.UsageError("--roster writes one file per student: give -o FOLDER")
    (loaded,) = _quizzes(root, [lesson])

    def text(student_id: str) -> str:
        variant = make_variant(loaded, student_id)
        if fmt == "json":
            return json.dumps(variant, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        return render_text(variant, lang, answers)

    if roster:
        students = read_roster(roster)
        pages = {s: text(s) for s in students}  # everything computed before anything is written
        output.mkdir(parents=True, exist_ok=True)
        for s, page in pages.items():
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in s)
            (output / f"{loaded.quiz.id}-{safe}.{'json' if fmt == 'json' else 'txt'}").write_text(
                page, encoding="utf-8"
            )
        click.echo(f"wrote {len(pages)} variant(s) to {output}", err=True)
    elif output:
        output.write_text(text(student or PRACTICE), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text(student or PRACTICE), nl=False)


@quiz.command("export")
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["gift", "moodle-xml", "qti", "json"]),
    required=True,
    help="gift / moodle-xml (Moodle), qti (Canvas QTI 1.2 zip), json.",
)
@click.option("--lesson", "-l", "lessons", multiple=True, help="Only this lesson's quiz (repeatable). [default: all]")
@click.option("--student", "-s", default=None, help="Export this student's variant. [default: practice]")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Export every student's variant (one category / assessment each).",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The file to write."
)
@fail_on_content_errors
def quiz_export(root, fmt, lessons, student, roster, output) -> None:
    """Export quizzes for an LMS. Same input, same bytes."""
    from coursegen.quiz.exports import write_export
    from coursegen.quiz.show import read_roster
    from coursegen.quiz.variants import PRACTICE, make_variant

    if roster and student:
        raise click.UsageError("give --student or --roster, not both")
    students = read_roster(roster) if roster else [student or PRACTICE]
    variants = [make_variant(loaded, s) for loaded in _quizzes(root, lessons) for s in students]
    write_export(variants, fmt, output)
    click.echo(f"wrote {output} ({len(variants)} quiz variant(s), {fmt})", err=True)


@quiz.command("verify")
@root_option
def quiz_verify(root) -> None:
    """Run the quiz quality gate: answers compute, distractors differ from answers, enough variants,
    and every generated key agrees with its independent oracle."""
    from coursegen.quiz.gate import verify_quizzes

    problems = verify_quizzes(root, oracles=True, progress=True)
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        click.echo(f"{len(problems)} quiz problem(s).", err=True)
        sys.exit(1)
    click.echo("OK: every quiz passes the quality gate; every generated key agrees with its oracle.")


@quiz.command("grade")
@root_option
@click.argument("responses", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="scores.csv: student,quiz,score,max_score,percent.",
)
@click.option(
    "--details",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write one row per question: student,quiz,question,response,points,max_points.",
)
@click.option(
    "--gradebook",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Append this run to a SQLite gradebook (tables quiz_runs, quiz_results).",
)
@fail_on_content_errors
def quiz_grade(root, responses, output, details, gradebook) -> None:
    """Grade RESPONSES.csv (student,quiz,question,response) against each student's own variant.

    Responses: option letters as shown in the student's variant (A, B, ...), numbers, shapes
    like [4, 128, 32000], short text; matching as the letters in item order ("B, A, C").
    """
    from coursegen.quiz import grade

    rows = grade.read_responses(responses)
    quizzes = {loaded.quiz.id: loaded for loaded in _quizzes(root)}
    results = grade.grade_responses(rows, quizzes, str(responses))
    summary = grade.summarise(results)
    output.write_text(grade.scores_csv(summary), encoding="utf-8")
    if details:
        details.write_text(grade.details_csv(results), encoding="utf-8")
    if gradebook:
        run = grade.append_to_gradebook(gradebook, results, grade.file_sha256(responses))
        click.echo(f"gradebook {gradebook}: run {run}", err=True)
    click.echo(f"graded {len(summary)} quiz attempt(s); wrote {output}", err=True)


# ---- exports: export classroom, export gradescope ---------------------------------------


@main.group()
def export() -> None:
    """Export a lesson's autograder to GitHub Classroom or Gradescope. / 导出评分器。"""


def _run_export(make) -> None:
    from coursegen.exports.files import ExportError

    try:
        message = make()
    except ExportError as exc:
        click.echo(f"error: {exc}", err=True)
        click.echo("nothing was written.", err=True)
        sys.exit(2)
    click.echo(message)


@export.command("classroom")
@click.option("--lesson", "lesson_id", required=True, help="The lesson id (a name in content/course.yaml).")
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write the starter repository into (created; an earlier export is replaced).",
)
@click.option(
    "--lang",
    type=click.Choice(["en", "zh"]),
    default="en",
    show_default=True,
    help="Language of the student notebook and of the feedback.",
)
@root_option
@fail_on_content_errors
def export_classroom(lesson_id: str, out_dir: Path, lang: str, root: Path) -> None:
    """A GitHub Classroom starter repository: the lesson's notebook, a bilingual README and a
    workflow that runs `coursegen grade` on every push (public checks only, expected values
    precomputed; feedback, not the grade). It contains no solution, mistake hint or hidden check.

    \b
    Example: coursegen export classroom --lesson LESSON -o starter
    """
    from coursegen.exports.classroom import export_classroom as run

    def make() -> str:
        done = run(root, lesson_id, out_dir, lang=lang)
        return f"wrote {done.out_dir} ({done.notebook}, {done.checks} public checks with precomputed values)"

    _run_export(make)


@export.command("gradescope")
@click.option("--lesson", "lesson_id", help="The lesson id (a name in content/course.yaml): its exercises.")
@click.option(
    "--assignment",
    "assignment_id",
    metavar="ID",
    help="Instead of --lesson: a course assignment (content/course.yaml `assignments:`).",
)
@click.option(
    "-o",
    "--output",
    "zip_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The autograder zip to write (e.g. autograder.zip).",
)
@click.option(
    "--lang",
    type=click.Choice(["en", "zh"]),
    default="en",
    show_default=True,
    help="Language of the feedback students read on Gradescope.",
)
@root_option
@fail_on_content_errors
def export_gradescope(lesson_id: str | None, assignment_id: str | None, zip_path: Path, lang: str, root: Path) -> None:
    """A Gradescope autograder zip (setup.sh, run_autograder at its root) with the full grader:
    hidden checks report with visibility "after_due_date". Deterministic (same input, same bytes).

    \b
    Example: coursegen export gradescope --lesson LESSON -o autograder.zip
    (or --assignment ID: the zip grades that assignment's exercises, out of its maximum)
    """
    from coursegen.exports.gradescope import export_gradescope as run

    def make() -> str:
        done = run(root, lesson_id, zip_path, lang=lang, assignment_id=assignment_id)
        return f"wrote {done.zip_path} ({done.entries} files); upload it as the assignment's autograder"

    _run_export(make)


class _MistakesGroup(click.Group):
    """`coursegen mistakes ...`, defined in coursegen/mistakes_cli.py and imported when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["propose"]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name != "propose":
            return None
        from coursegen.mistakes_cli import make_propose_command

        return make_propose_command(root_option)


main.add_command(_MistakesGroup("mistakes", help="The catalogue of typical mistakes (solutions/mistakes/)."))


if __name__ == "__main__":
    main()
