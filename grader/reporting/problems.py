"""What went wrong with a submission, as data the class report can count.

Every check result carries `problem`: why the student's code produced no usable answer, taken
from what the sandbox already reports (`CandidateError.kind`, `SubmissionLoadError.kind`)
and from the submission reader (a `fatal` reason). An empty string means the code ran and
answered (rightly or wrongly). The values:

    unreadable          the file could not be read or parsed (too large, not UTF-8, syntax error,
                        not a notebook, nothing gradable in it): no code ran
    import_<kind>       executing the file failed before any check (import_raised, import_timeout,
                        import_memory, import_exited, ...)
    missing             the exercise is not defined in the submission
    not_implemented     the function raised NotImplementedError (the starter stub)
    raised, returned    the call raised, or returned something that is not a value
    timeout, cpu        wall-clock or CPU time limit
    memory, file_size, output      resource limits
    exited, crashed, garbled, gone the child ended, died on a signal, sent garbage, or had died
    check_error         the check itself failed (a grader problem, not the student's)
    leftover            a process of the submission's child was still alive after its end
                        (the sandbox's containment failed: a grader problem)
    instructor_timeout  a reference or catalogued mistake did not return within its limit

A run's `problem_kinds` groups those into the few kinds an instructor acts on
(`KINDS`, in this order), computed by `run_kinds`.
"""

from __future__ import annotations

import re
from typing import Iterable

KINDS = ("unreadable", "import_failed", "timeout", "limit", "crash", "grader_error")

_KIND_OF = {
    "unreadable": "unreadable",
    "timeout": "timeout",
    "cpu": "timeout",
    "total_time": "timeout",
    "memory": "limit",
    "file_size": "limit",
    "output": "limit",
    "exited": "crash",
    "crashed": "crash",
    "garbled": "crash",
    "check_error": "grader_error",
    "leftover": "grader_error",
    "instructor_timeout": "grader_error",
}


def kind_of(problem: str) -> str | None:
    """The run-level kind of one check's `problem` (None: not a problem worth counting)."""
    if not problem:
        return None
    if problem.startswith("import_"):
        rest = problem[len("import_") :]
        return _KIND_OF.get(rest) if rest in ("timeout", "cpu", "memory", "file_size", "output") else "import_failed"
    return _KIND_OF.get(problem)


def run_kinds(check_problems: Iterable[str], fatal: bool = False) -> list[str]:
    """The distinct kinds of a run, in KINDS order."""
    found = {"unreadable"} if fatal else set()
    found.update(k for k in map(kind_of, check_problems) if k)
    return [k for k in KINDS if k in found]


def of_error(error: BaseException | None) -> str:
    """The `problem` of a check that failed with `error` ("" for a plain wrong answer)."""
    if error is None:
        return ""
    kind = getattr(error, "kind", None)
    if isinstance(kind, str) and kind:
        if kind == "raised" and re.search(r"\bNotImplementedError\b", str(error)):
            return "not_implemented"
        return kind
    if isinstance(error, AssertionError):
        return ""
    return "check_error"
