"""What the grading commands of cli.py do, returning exit codes (0 ran, 1 low score or failed
verification, 2 could not run). Kept out of cli.py so that the command line stays thin."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from grader import courseroot
from grader.assignments import AssignmentError, Definition
from grader.atomic import write_atomically

if TYPE_CHECKING:
    from tqdm import tqdm

EXIT_OK, EXIT_FAILED, EXIT_CANNOT_RUN = 0, 1, 2


def _error(command: str, message: str) -> int:
    click.echo(f"coursegen {command}: error: {message}", err=True)
    return EXIT_CANNOT_RUN


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
    scheduler: str | None = None,
    root: Path = Path("."),
    definition: Definition | None = None,
    new_definition: bool = False,
) -> int:
    checks_dir = checks_dir or courseroot.checks_dir(root)
    if not checks_dir.is_dir():
        return _error(
            "grade",
            f"{checks_dir}: no checks folder; give --root the course folder "
            "(it holds content/, exercises/, solutions/, grader/checks/)",
        )
    from grader import reports
    from grader.batch import BatchError, parse_shard, run_batch
    from grader.gradebook import GradebookError
    from grader.plugin import GraderSetupError
    from grader.course import Course
    from grader.sandbox.sandbox import course_root_folders

    MODULES = Course.load(root).registry.modules
    if module is not None and module not in MODULES:
        return _error("grade", f"--module {module!r}: expected one of {', '.join(MODULES)}")
    if scheduler and workers:
        return _error("grade", "give --workers (local processes) or --scheduler (a Dask cluster), not both")
    batch = len(paths) > 1 or any(p.is_dir() for p in paths)
    if batch and gradebook is None:
        gradebook = Path("gradebook.sqlite")
    try:
        shard_spec = parse_shard(shard) if shard else None
        if shard_spec and seed is None and not (gradebook and gradebook.exists()):
            return _error(
                "grade",
                "--shard needs --seed (or a gradebook holding the batch seed) so that every "
                "shard draws the same inputs",
            )
        results = run_batch(
            paths,
            workers=workers or (None if batch else 1),
            gradebook=gradebook,
            seed=seed,
            shard=shard_spec,
            lang=lang,
            module=module,
            roster=roster,
            checks_dir=checks_dir,
            progress=batch,
            hide=(*course_root_folders(root)[0], *((str(output.resolve()),) if output else ())),
            scheduler=scheduler,
            definition=definition,
            new_definition=new_definition,
        )
        if definition is not None:  # one result per student, out of the assignment's maximum
            results = per_student(results, definition)
            batch = batch or len(results) > 1
    except (BatchError, GradebookError, GraderSetupError, AssignmentError, ValueError) as exc:
        return _error("grade", str(exc))
    if not results and not shard_spec:
        return _error(
            "grade",
            f"no submissions (.py or .ipynb files, or student folders) under {', '.join(str(p) for p in paths)}",
        )
    report = reports.render(results[0] if len(results) == 1 and not batch else results, fmt)
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


def per_student(results: list, definition: Definition) -> list:
    """The per-file results of a batch combined per student (grader.assignments.combine)."""
    from grader.assignments import combine

    by_student: dict[str, list] = {}
    for result in results:
        by_student.setdefault(result.student, []).append(result)
    return [combine(student, mine, definition) for student, mine in by_student.items()]


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
        """Called by grader.verify.verify before the session starts: subjects per module."""
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


VERIFY_CACHE = Path(".coursegen-cache") / "verify"  # under the course root, beside the build's caches


def verify_cache(root: Path, *, use_cache: bool = True):
    """The proof cache of the course at `root` (grader/proof_cache.py); `use_cache=False`
    (`verify --all`) proves everything again, and stores what passes."""
    from grader.proof_cache import ProofCache

    return ProofCache(Path(root).resolve() / VERIFY_CACHE, enabled=use_cache, base=Path(root))


def run_verify(modules: list[str], root: Path = Path("."), cache=None) -> int:
    from grader.course import Course
    from grader.plugin import GraderSetupError
    from grader.verify import format_table, verify

    MODULES = Course.load(root).registry.modules

    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        return _error("verify", f"unknown module(s) {', '.join(unknown)}; expected some of {', '.join(MODULES)}")
    try:
        with VerifyProgress() as progress:
            rows = verify(modules or None, checks_dir=courseroot.checks_dir(root), progress=progress, cache=cache)
    except GraderSetupError as exc:
        return _error("verify", str(exc))
    click.echo(format_table(rows))
    failed = [r for r in rows if not r.ok]
    click.echo(f"{len(rows) - len(failed)} of {len(rows)} verified" + (f"; {len(failed)} FAILED" if failed else ""))
    return EXIT_FAILED if failed else EXIT_OK


def run_gradebook_export(path: Path, output: Path | None) -> int:
    from grader.gradebook import Gradebook, GradebookError

    try:
        with Gradebook(path, create=False, read_only=True) as book:
            text = book.export_csv()
    except GradebookError as exc:
        return _error("gradebook export", str(exc))
    if output:
        write_atomically(output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def run_gradebook_merge(first: Path, second: Path, output: Path) -> int:
    from grader.gradebook import GradebookError, merge

    try:
        count = merge(first, second, output)
    except GradebookError as exc:
        return _error("gradebook merge", str(exc))
    click.echo(f"wrote {output} with {count} run(s)", err=True)
    return EXIT_OK
