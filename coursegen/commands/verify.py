"""`coursegen verify`: prove the course (references, stubs, mistakes, quizzes), with its progress."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._common import EXIT_FAILED, EXIT_OK, cannot_run, end_at_once, root_option

if TYPE_CHECKING:
    from tqdm import tqdm


@click.command()
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
    solutions have the same signatures, every check fails odd student values (10**400, None,
    complex or NaN answers, objects whose operators raise, ...) with a message, never breaking
    (check_error: named with the check's file:line and the value); then every quiz passes its quality gate (answers
    compute, no distractor equals its answer, enough variants) and every generated key agrees
    with its independent oracle (@oracle in content/plugins/) over the question's whole parameter
    space. Shows progress per module and per quiz on stderr; prints a table; exit 1 on any failure.

    Each proof is cached by the hash of everything it depends on (references, checks, mistakes,
    registry, plugins, quiz files, the engine, library versions): a run re-proves only what
    changed and says how many proofs it reused; --all proves everything again."""
    from grader.verifying.proof_cache import verify_cache

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


def run_verify(modules: list[str], root: Path = Path("."), cache=None) -> int:
    """What `coursegen verify` does for the exercises (the quizzes follow); the exit status."""
    from grader.course import Course
    from grader.running.session import GraderSetupError
    from grader.verifying.verify import format_table, verify

    course = Course.load(root)
    MODULES = course.registry.modules
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        return cannot_run("verify", f"unknown module(s) {', '.join(unknown)}; expected some of {', '.join(MODULES)}")
    from coursegen.errors import ContentErrors
    from coursegen.stubs import stale_stub_errors

    try:
        stale = stale_stub_errors(Path(root))
    except ContentErrors as exc:
        stale = list(exc.errors)
    if stale:  # the stubs are the specification students read: an old one is a failure
        for error in stale:
            click.echo(str(error), err=True)
        click.echo(f"verify: {len(stale)} stub(s) out of date with the references", err=True)
        return EXIT_FAILED
    try:
        with VerifyProgress() as progress:
            rows = verify(course, modules or None, progress=progress, cache=cache)
    except GraderSetupError as exc:
        return cannot_run("verify", str(exc))
    click.echo(format_table(rows))
    failed = [r for r in rows if not r.ok]
    click.echo(f"{len(rows) - len(failed)} of {len(rows)} verified" + (f"; {len(failed)} FAILED" if failed else ""))
    return EXIT_FAILED if failed else EXIT_OK


class VerifyProgress:
    """Progress of `coursegen verify` on stderr: one line when grading starts and one per finished
    module; on a terminal also a tqdm bar over every subject, labelled with the current module.
    Writes to the real stderr (sys.__stderr__): the grading session captures sys.stderr while
    the checks run."""

    def __init__(self) -> None:
        self.stream = sys.__stderr__ or sys.stderr
        self.tty = self.stream.isatty()
        self.bar: tqdm | None = None
        self.started = time.perf_counter()

    def __enter__(self) -> "VerifyProgress":
        return self

    def begin(self, per_module: dict[str, int]) -> None:
        """Called by grader.verifying.verify.verify before the session starts: subjects per module."""
        total = sum(per_module.values())
        self._write(f"verify: grading {total} subject(s) of {len(per_module)} module(s) in one sandboxed session")
        if self.tty and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="verify", unit="subject", file=self.stream, leave=False)

    def __call__(self, module: str, subject: str, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"verify {module}", refresh=False)
            self.bar.set_postfix_str(subject, refresh=False)
            self.bar.update(1)
        if done == total:
            self._write(
                f"verify: module {module}: {total} subject(s) graded ({time.perf_counter() - self.started:.1f} s)"
            )

    def values(self, kind: str, done: int, total: int) -> None:
        """Called as each odd-value probe (grader/verifying/odd_values.py) is graded."""
        if self.bar is not None:
            self.bar.set_description_str("verify odd values", refresh=False)
            self.bar.set_postfix_str(kind)
        if done == total:
            self._write(
                f"verify: {total} odd-value probe(s) graded over every check "
                f"({time.perf_counter() - self.started:.1f} s)"
            )

    def _write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
