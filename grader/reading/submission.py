"""Read a submission (.py or .ipynb) into the code the sandboxed child will run.

Nothing here executes the submission: notebooks are read as JSON and code is only parsed
(`ast.parse`) to find which exercise names it defines.

    load_submission(path, course, module=None) -> Submission

A `.py` file is graded as the exercise module named by its stem (`vectors.py`), by `module`,
or, when renamed by an LMS (`smith_123_vectors-1.py`), as the module(s) of the exercise names it
defines. A notebook is graded on the exercises listed in its metadata.coursegen.exercises, tagged on
its cells or defined by them; it runs its `setup` and `exercise` cells (metadata.coursegen.role) in order,
with shell (`!`) and magic (`%`) lines and `get_ipython()` calls replaced by `pass`; where an
exercise's cell is missing or duplicated, the code cells whose top-level statements define
that name are used instead (only their imports and definitions). Malformed input gives a
Submission whose `.fatal` says why in one sentence (it is graded zero). What the reader tells
the student is kept as message kinds with values (grader.feedback.Said), never in one language:
the report of the run, the gradebook's readers and the feedback files put it into words.

Everything read here is hostile: the file is opened without following links (every folder
below the batch root and the file itself, `O_NOFOLLOW`), must be a regular file with one name
(a hard link to a reference is refused like a symbolic one) under MAX_BYTES; Python source
is parsed only when its token count is under MAX_TOKENS (so the syntax tree stays within
tens of MB), notebook JSON only when its value count and nesting are under MAX_JSON_VALUES /
MAX_JSON_DEPTH. Any other failure while reading one file (a JSON shape nobody
expected, a recursion or memory error) is that file's zero with a one-line reason, never an
exception out of `load_submission`.

This module decides what a file is and puts the parts together; the jobs live apart:
grader.reading.untrusted_input (reading bytes and parsing under bounds), grader.reading.notebook_code (the code
of a notebook) and grader.reading.exercise_names (which exercises the code or the file name holds).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from grader.reading.exercise_names import (
    defined_exercise_names,
    exercises_named_in,
    exercises_of_lesson,
    exercises_of_modules_defining,
    names_by_pattern,
)
from grader.course import Course
from grader.feedback import Said, said
from grader.reading.notebook_code import notebook_code
from grader.textsafe import display_name
from grader.reading.untrusted_input import MAX_TOKENS, Refused, parse_bounded, read_untrusted, syntax_message


@dataclass
class Submission:
    path: Path
    kind: str  # "py" | "ipynb" | "other"
    sha256: str
    code: str = ""  # what the child executes
    names: set[str] = field(default_factory=set)  # exercise names it defines
    exercises: tuple[str, ...] = ()  # exercise names to grade (registry order)
    problems: list[Said] = field(default_factory=list)  # what to tell the student
    fatal: Said | None = None  # set when nothing can run: graded zero


def load_submission(
    path: Path | str,
    course: Course,
    module: str | None = None,
    root: Path | str | None = None,
) -> Submission:
    """Read one submission file of `course`. Raises ValueError only for an unknown `module` name.

    `root` is the batch folder the path lies in: no folder between it and the file may be a link."""
    path = Path(path)
    if module is not None and module not in course.registry.modules:
        raise ValueError(f"unknown exercise module {module!r}; expected one of {', '.join(course.registry.modules)}")
    sub = Submission(path=path, kind=_kind(path), sha256=hashlib.sha256(b"").hexdigest())
    if module is not None:
        sub.exercises = tuple(e.name for e in course.registry.exercises_in(module))
    elif sub.kind == "py" and path.stem in course.registry.modules:
        sub.exercises = tuple(e.name for e in course.registry.exercises_in(path.stem))
    try:
        data = read_untrusted(path, None if root is None else Path(root))
    except Refused as refused:
        return _unreadable(sub, refused.said, course)
    sub.sha256 = hashlib.sha256(data).hexdigest()
    if sub.kind == "other":
        sub.fatal = said("wrong_suffix", name=display_name(path.name))
        return sub
    try:
        text = data.decode("utf-8-sig")
        del data
        if sub.kind == "py":
            _read_python(sub, text, course)
        else:
            _read_notebook(sub, text, course)
    except UnicodeDecodeError as exc:
        return _unreadable(sub, said("not_utf8", byte=exc.object[exc.start], offset=exc.start), course)
    except Refused as refused:
        return _unreadable(sub, refused.said, course)
    except (RecursionError, MemoryError) as exc:
        return _unreadable(sub, said("too_complex", what=type(exc).__name__), course)
    except Exception as exc:  # noqa: BLE001 - a shape of input nobody foresaw: this file's zero, not the batch's end
        return _unreadable(sub, said("unreadable", what=type(exc).__name__), course)
    if sub.fatal:
        return _unreadable(sub, sub.fatal, course)
    if not sub.exercises:  # graded zero, still out of the maximum its name suggests
        return _unreadable(
            sub, said("no_exercises", names=", ".join(e.name for e in course.registry.exercises)), course
        )
    return sub


def _unreadable(sub: Submission, reason: Said, course: Course) -> Submission:
    """A file that cannot be read: graded zero, on the exercises its name suggests if any
    (`smith_123_vectors-1.py`, a lesson notebook `dot-product.ipynb`), so that its maximum score
    is still the module's (0/19, not 0/0). Nothing of it runs."""
    sub.fatal = reason
    sub.code = ""
    if not sub.exercises:
        sub.exercises = (
            exercises_named_in(sub.path.stem, course)
            if sub.kind == "py"
            else (exercises_of_lesson(sub.path.stem, course) or exercises_named_in(sub.path.stem, course))
        )
    return sub


def _kind(path: Path) -> str:
    return {".py": "py", ".ipynb": "ipynb"}.get(path.suffix.lower(), "other")


# ---- .py -------------------------------------------------------------------------------------


def _read_python(sub: Submission, text: str, course: Course) -> None:
    sub.code = text
    try:
        tree = parse_bounded(text, "submission.py", [MAX_TOKENS])
    except (SyntaxError, ValueError) as exc:
        sub.names = names_by_pattern(text, course)
        sub.fatal = syntax_message(exc)
    else:
        sub.names = defined_exercise_names(tree, course)
    if not sub.exercises:
        sub.exercises = exercises_of_modules_defining(sub.names, course) or exercises_named_in(sub.path.stem, course)


# ---- .ipynb ----------------------------------------------------------------------------------


def _read_notebook(sub: Submission, text: str, course: Course) -> None:
    found = notebook_code(text, course)
    if found.fatal:
        sub.fatal = found.fatal
        return
    sub.code, sub.names, sub.problems = found.code, found.names, sub.problems + found.problems
    sub.exercises = sub.exercises or found.exercises
