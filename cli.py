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

import click

ROOT = Path(__file__).resolve().parent


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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

_root_option = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=".",
                            show_default=True, help="The course repository (holds content/ and templates/).")


@main.command()
@_root_option
@fail_on_content_errors
def check(root: Path) -> None:
    """Check the course content (YAML, schema, ids, translations, links, math) without building.

    Mistakes are printed as `file:line:column: message`; the exit status is 1 when there is any.
    """
    from coursegen.loader import load_course

    loaded = load_course(root)
    click.echo(f"OK: {len(loaded.lessons)} lesson(s) checked.")


@main.command()
@_root_option
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the site.  [default: <root>/_site]")
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


@main.command()
@_root_option
@click.option("--port", type=int, default=8000, show_default=True, help="Port on localhost.")
@click.option("--interval", type=float, default=1.0, show_default=True, help="Seconds between checks for changes.")
def serve(root: Path, port: int, interval: float) -> None:
    """Preview the site on http://localhost:PORT and rebuild when content/ or templates/ change."""
    from coursegen.serve import serve as run_server

    run_server(root, port=port, interval=interval)


@main.command()
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the JSON Schema to this file instead of standard output.")
def schema(output: Path | None) -> None:
    """Print the JSON Schema of lesson and course files (for editor completion and checking)."""
    from coursegen.jsonschema import course_json_schema

    text = course_json_schema()
    if output:
        output.write_text(text, encoding="utf-8")
        click.echo(f"Wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


# ---- grading: grade, verify, gradebook --------------------------------------------------


@main.command()
@click.option("--check", is_flag=True,
              help="Write nothing; exit 1 naming every stub that differs from what the solutions generate.")
@fail_on_content_errors
def stubs(check: bool) -> None:
    """Generate the student stubs exercises/<module>.py from solutions/<module>.py.

    Each `# BEGIN SOLUTION` ... `# END SOLUTION` region becomes `raise NotImplementedError`;
    imports, signatures and docstrings are kept.
    """
    from coursegen.stubs import stale_stubs, write_stubs

    if check:
        stale = stale_stubs(ROOT)
        for path in stale:
            problem = "differs from" if path.exists() else "is missing; expected"
            click.echo(f"{path.relative_to(ROOT)}: {problem} the stub generated from "
                       f"solutions/{path.name}; run `coursegen stubs`", err=True)
        sys.exit(1 if stale else 0)
    for path in write_stubs(ROOT):
        click.echo(f"wrote {path.relative_to(ROOT)}")


# ---- quizzes: quiz ... ------------------------------------------------------------------


# ---- exports: export classroom, export gradescope ---------------------------------------


if __name__ == "__main__":
    main()
