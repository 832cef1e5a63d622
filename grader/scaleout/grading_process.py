"""What every grading process of a batch shares, a local worker (grader.scaleout.batch) or a Dask worker
(grader.scaleout.cluster): the batch's error, the hash that says which checks graded a run, and the
set-up of a process before its first submission.

    BatchError                  the batch cannot run (bad arguments, a broken roster, a dead worker)
    checks_hash(course, checks_dir)   sha256 over the checks, the references and the comparison code
    resolve_factory(spec)             the sandbox factory a test names as "module:function", or None
    one_thread(course)                torch on one intra-op thread (parallelism comes from processes)
    warm_up_autograd(course)          the first backward pass's imports, done before the first check

Every process is handed its course (grader.course.Course): a local worker and a Dask worker
load it from the root the batch gives them, never from their own working folder.
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from typing import Any, Callable

from grader.course import Course
from grader.errors import CoursegenError

ENGINE = Path(__file__).resolve().parents[1]  # grader/, from grader/scaleout/


class BatchError(CoursegenError):
    """The batch cannot run (bad arguments, a broken roster, a worker that died)."""


def checks_hash(course: Course, checks_dir: Path | None = None) -> str:
    """sha256 over the checks (default: the course's), the course's references and mistakes, and
    the comparison code."""
    checks_dir = Path(checks_dir or course.checks_dir)
    files = (
        sorted(checks_dir.rglob("*.py"))
        + sorted((course.root / "solutions").rglob("*.py"))
        + sorted((ENGINE / "checking").glob("*.py"))
    )
    digest = hashlib.sha256()
    for file in files:
        if "__pycache__" in file.parts:
            continue
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def resolve_factory(spec: str | None) -> Callable[[], Any] | None:
    if spec is None:
        return None
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _course_torch(course: Course):
    """torch when the course requires it (`requires:` in course.yaml), else None (never imported)."""
    if not course.uses("torch"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch


def one_thread(course: Course) -> None:
    """Parallelism comes from workers; torch's intra-op threads only contend with them."""
    torch = _course_torch(course)
    if torch is not None:
        torch.set_num_threads(1)


def warm_up_autograd(course: Course) -> None:
    """The first backward pass imports torch's symbolic-shape machinery (seconds); do it while
    the worker starts rather than inside the first check that uses autograd (courses with torch)."""
    torch = _course_torch(course)
    if torch is not None:
        torch.ones(1, requires_grad=True).sum().backward()
