"""Grade many submissions: discover them, shard them, skip what the gradebook already holds,
grade the rest on an executor (grader/scaleout/executors.py: this process, local workers or a
Dask cluster), record every run.

A PATH is a submission file, or a folder of submissions: each file in it is one student's
(student id = file stem) and each sub-folder is one student's (student id = folder name,
every .py/.ipynb inside is graded). A roster CSV (`student,submission` columns) maps file
or folder names to student ids.

What is graded and how is one value, the grading run (grader/scaleout/run.py: course, seed,
assignment definition, hidden paths, ...), built once by the command. The parent only parses
submissions, hands out jobs and writes the gradebook, one transaction per submission, so a batch
killed at any point resumes where it stopped. Every grading process is handed the run and loads
the course from its root (grader.course.Course), wherever it runs.
"""

from __future__ import annotations

import csv
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from grader.reporting.assignments import Definition, apply, mark
from grader.course import Course, Registry
from grader.feedback import said, say
from grader.running.grade import new_seed, result_from
from grader.scaleout.grading_process import BatchError, checks_hash
from grader.scaleout.run import GradingRun
from grader.reporting.results import SubmissionResult
from grader.reporting.results import CheckResult
from grader.reading.submission import Submission, load_submission
from grader.textsafe import display_name
from grader.errors import CoursegenError

if TYPE_CHECKING:
    from grader.scaleout.executors import Executor

SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Entry:
    student: str
    path: Path
    name: str  # what the gradebook stores: the file name, or "<folder>/<file>"
    root: Path | None = None  # the batch folder: nothing below it is followed as a link
    refused: tuple = ()  # a student folder not walked: ("too_deep" | "too_many_files", limit), graded zero


# ---- finding submissions ---------------------------------------------------------------------


def discover(paths: list[Path], roster: dict[str, str] | None = None, skipped: list[str] | None = None) -> list[Entry]:
    """The submissions under `paths`, sorted by student then name. Links are never followed:
    a link (to a file or a folder) is an entry of its own, refused when it is read. Names that
    are not valid UTF-8 become ids with \\xNN escapes (grader.textsafe.display_name). A regular
    file at the top of a batch folder that is not .py/.ipynb is never a student: it is left out,
    and its path added to `skipped`."""
    entries: list[Entry] = []
    for path in map(Path, paths):
        if not path.exists() and not path.is_symlink():
            raise BatchError(f"{display_name(str(path))}: no such file or folder")
        if not path.is_dir():
            entries.append(Entry(_student(path.name, path.stem, roster), path, display_name(path.name)))
            continue
        for child in sorted(path.iterdir()):
            if child.name.startswith((".", "_")):
                continue
            if not child.is_symlink() and child.is_file() and child.suffix.lower() not in SUFFIXES:
                if skipped is not None:  # a roster, a grades file, an LMS's index page: not a student
                    skipped.append(display_name(str(child)))
                continue
            if child.is_symlink() or not child.is_dir():
                entries.append(Entry(_student(child.name, child.stem, roster), child, display_name(child.name), path))
                continue
            student = _student(child.name, child.name, roster)
            try:
                files = [f for f in _files_below(child) if f.suffix.lower() in SUFFIXES or f.is_symlink()]
            except _FolderRefused as refused:
                entries.append(Entry(student, child, display_name(child.name) + "/", path, refused.args))
                continue
            if not files:
                entries.append(Entry(student, child, display_name(child.name) + "/", path))
            for file in files:
                entries.append(
                    Entry(student, file, display_name(f"{child.name}/{file.relative_to(child).as_posix()}"), path)
                )
    return sorted(set(entries), key=lambda e: (e.student, e.name))  # a file named twice is graded once


MAX_FOLDER_DEPTH = 16  # folders below a student's folder (LMS exports use 2 or 3)
MAX_FILES_PER_STUDENT = 64  # .py/.ipynb files and links below it, each graded
MAX_ENTRIES_PER_STUDENT = 10_000  # names of any kind looked at below it


class _FolderRefused(CoursegenError):
    """A student folder too deep or too full to walk: args are (feedback key, limit)."""


def _files_below(folder: Path) -> list[Path]:
    """Files and links under a student's folder (hidden and _private names skipped), never
    descending into a linked folder. Walked without recursion and within MAX_FOLDER_DEPTH and
    MAX_FILES_PER_STUDENT, so a student's folder tree can neither crash the batch nor make it
    grade thousands of copies."""
    found: list[Path] = []
    seen = graded = 0
    pending = [(folder, 0)]
    while pending:
        top, depth = pending.pop()
        try:
            with os.scandir(top) as scan:
                items = sorted(
                    (item for item in scan if not item.name.startswith((".", "_"))), key=lambda item: item.name
                )
        except OSError:
            continue
        seen += len(items)
        if seen > MAX_ENTRIES_PER_STUDENT:
            raise _FolderRefused("too_many_files", MAX_ENTRIES_PER_STUDENT)
        for item in items:
            if item.is_dir(follow_symlinks=False):
                if depth + 1 > MAX_FOLDER_DEPTH:
                    raise _FolderRefused("too_deep", MAX_FOLDER_DEPTH)
                pending.append((Path(item.path), depth + 1))
                continue
            found.append(Path(item.path))
            graded += Path(item.name).suffix.lower() in SUFFIXES or item.is_symlink()
            if graded > MAX_FILES_PER_STUDENT:
                raise _FolderRefused("too_many_files", MAX_FILES_PER_STUDENT)
    return sorted(found)


def _student(name: str, default: str, roster: dict[str, str] | None) -> str:
    if roster:
        return roster.get(name) or roster.get(default) or display_name(default)
    return display_name(default)


def read_roster(path: Path) -> dict[str, str]:
    """`student,submission` rows: submission is a file or folder name in the batch folder."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchError(f"{path}: cannot read the roster ({exc})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["student", "submission"]:
        raise BatchError(f"{path}:1:1: expected the header 'student,submission'")
    roster: dict[str, str] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) < 2 or not row[0].strip() or not row[1].strip():
            raise BatchError(f"{path}:{line}:1: expected 'student,submission', got {','.join(row)!r}")
        roster[row[1].strip()] = row[0].strip()
    return roster


# ---- shards and hashes -----------------------------------------------------------------------


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' with 1 <= K <= N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise BatchError(f"--shard {text!r}: expected K/N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise BatchError(f"--shard {text!r}: K must be between 1 and N")
    return k, n


def shard_of(student: str, count: int) -> int:
    """The shard (1-based) a student belongs to: stable across machines and runs."""
    digest = hashlib.sha256(student.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


# ---- running ---------------------------------------------------------------------------------


def run_batch(
    paths: list[Path],
    run: GradingRun,
    executor: Executor | None = None,
    *,
    gradebook: Path | None = None,
    progress: bool = True,
    on_result: Callable[[SubmissionResult], None] | None = None,
) -> list[SubmissionResult]:
    """Grade everything under `paths` with `run` (its course, seed, definition, ...: see
    grader/scaleout/run.py) on `executor` (grader/scaleout/executors.py; default: LocalPool(),
    spawned workers or this process); returns one result per submission (graded now or earlier,
    from the gradebook), sorted by student then submission name.

    `on_result` is called with each result graded in this run, as it arrives. The gradebook,
    the batch and the paths in `run.hide` are hidden from the sandboxed child. With
    `run.definition` (grader/reporting/assignments.py) every submission is graded against exactly
    that assignment's exercises and points, whatever it defines or claims; a gradebook holding
    runs of another definition of the same assignment is refused unless `run.new_definition`."""
    from grader.reporting.gradebook import Gradebook
    from grader.scaleout.executors import LocalPool

    executor = executor if executor is not None else LocalPool()
    course, definition = run.course, run.definition
    skipped: list[str] = []
    entries = discover(paths, read_roster(run.roster) if run.roster else None, skipped)
    for name in skipped:
        print(
            f"note: {name}: not a .py or .ipynb file, left out (a batch folder holds one folder or "
            "one code file per student; an LMS download: --from canvas|gradescope|moodle|classroom)",
            file=sys.stderr,
        )
    book_files: list[str | Path] = (
        [gradebook, f"{gradebook}-wal", f"{gradebook}-shm", f"{gradebook}-journal"] if gradebook else []
    )
    # The child sees none of: the gradebook and its side files, the reports, the batch itself
    # (a classmate's submission), wherever they lie.
    run = run.but(hide=tuple(str(Path(p).resolve()) for p in (*run.hide, *book_files, *paths)))
    if run.shard:
        entries = [e for e in entries if shard_of(e.student, run.shard[1]) == run.shard[0]]
    book = Gradebook(gradebook) if gradebook else None
    try:
        seed = run.seed
        if book is not None:
            stored = book.seed()
            if seed is not None and stored is not None and stored != seed:
                raise BatchError(
                    f"{gradebook}: this gradebook's batch was graded with another seed; "
                    "omit --seed to resume it, or grade into a new gradebook"
                )
            seed = book.ensure_seed(new_seed() if seed is None else seed)
            if definition is not None:
                _check_definition(book, definition, run.new_definition)
                book.record_definition(definition)
        elif seed is None:
            seed = new_seed()
        run = run.but(seed=seed)
        hash_ = checks_hash(course, run.checks_dir)
        submissions = [prepare_submission(entry, run) for entry in entries]
        stored_definition = definition.hash if definition is not None else ""
        results: dict[int, SubmissionResult] = {}
        todo = []
        for index, (entry, submission) in enumerate(zip(entries, submissions)):
            key = (entry.student, entry.name, submission.sha256, hash_, seed, stored_definition)
            done = book.latest_result(*key) if book is not None and book.has_run(*key) else None
            if done is not None:
                done.graded_against = (
                    definition.describe()
                    if definition is not None
                    else unassigned(submission, course.registry, run.lang)
                )
            if done is not None:
                results[index] = done
            else:
                todo.append(index)

        def finish(index: int, outcomes: list[CheckResult]) -> None:
            result = result_of(submissions[index], outcomes, entries[index], run)
            if book is not None:
                book.record(result, checks_hash=hash_, seed=seed)
            results[index] = result
            bar.update(1)
            if on_result is not None:
                on_result(result)

        from tqdm import tqdm

        # disable=None: a bar only on a terminal, not in CI logs
        with tqdm(
            total=len(todo),
            unit="submission",
            disable=None if progress and todo else True,
            file=sys.stderr,
            leave=False,
        ) as bar:
            executor.grade(run, [(index, submissions[index]) for index in todo], finish)
        return [results[i] for i in range(len(entries))]
    finally:
        if book is not None:
            book.close()


def prepare_submission(entry: Entry, run: GradingRun) -> Submission:
    """One student's file read (under limits) and set to be graded on exactly the run's
    definition's exercises when there is one: what a batch and the grading service
    (coursegen/service) do before grading."""
    submission = _load(entry, run.course, run.module)
    if run.definition is not None:
        against_assignment(submission, run.definition)
    return submission


def result_of(submission: Submission, outcomes: list[CheckResult], entry: Entry, run: GradingRun) -> SubmissionResult:
    """The result of one graded file from its checks' outcomes: scaled to the run's definition's
    points and marked with it when there is one. Shared by the batch and the grading service."""
    definition = run.definition
    if definition is not None:
        outcomes = apply(outcomes, definition)
    result = result_from(submission, outcomes, student=entry.student, name=entry.name, lang=run.lang)
    if definition is not None:
        mark(result, definition)
    else:
        result.graded_against = unassigned(submission, run.course.registry, run.lang)
    return result


def against_assignment(submission: Submission, definition: Definition) -> None:
    """Grade `submission` on exactly the definition's exercises: whatever its file name, the
    names it defines or its notebook metadata say, and even when it cannot be read (then it
    is charged all of them). A readable file that defines none of them says so in one line."""
    submission.exercises = definition.names
    if not submission.fatal and not (submission.names & set(definition.names)):
        submission.problems.append(
            said(
                "assignment_none_defined",
                assignment=definition.assignment,
                names=", ".join(definition.names),
                max=f"{definition.max_score:g}",
            )
        )


def unassigned(submission: Submission, registry: Registry, lang: str = "en") -> str:
    """What a submission graded without --assignment was graded on (exercises of `registry`), in one
    line of the feedback language."""
    BY_NAME = registry.by_name
    modules = ", ".join(dict.fromkeys(BY_NAME[n].module for n in submission.exercises if n in BY_NAME)) or "-"
    return say("graded_unassigned", lang, modules=modules, exercises=", ".join(submission.exercises) or "-")


def _check_definition(book: Any, definition: Definition, new_definition: bool) -> None:
    """Refuse to mix definitions of one assignment silently: when the assignment's latest runs were
    graded against another definition, only an explicit re-grade (`new_definition`) goes on. After
    one, the new definition is the latest and later batches (late submissions, a resume) need no flag."""
    if new_definition:
        return
    used = book.graded_definitions(definition.assignment)
    if used and used[-1] != definition.hash:
        known = {d.hash: d for d in book.definitions(definition.assignment)}
        before = known[used[-1]].describe() if used[-1] in known else f"definition {used[-1][:12]}"
        raise BatchError(
            f"{book.path}: assignment {definition.assignment} was graded against another definition, {before}; "
            f"the course now defines {definition.describe()}. Stored grades are never changed silently: "
            "give --new-definition to re-grade every submission against the new one (the old runs are kept), "
            "or grade into a new gradebook"
        )


def _load(entry: Entry, course: Course, module: str | None) -> Submission:
    if entry.refused:
        key, limit = entry.refused
        return Submission(
            path=entry.path,
            kind="other",
            sha256=hashlib.sha256(b"").hexdigest(),
            fatal=said(key, name=entry.name, limit=limit),
        )
    if entry.path.is_dir() and not entry.path.is_symlink():
        return Submission(
            path=entry.path, kind="other", sha256=hashlib.sha256(b"").hexdigest(), fatal=said("empty_folder")
        )
    return load_submission(entry.path, course, module=module, root=entry.root)
