"""What every grading process of a batch shares, a local worker (grader.batch) or a Dask worker
(grader.cluster): the batch's error, the hash that says which checks graded a run, and the
set-up of a process before its first submission.

    BatchError                  the batch cannot run (bad arguments, a broken roster, a dead worker)
    checks_hash(checks_dir)     sha256 over the checks, the references and the comparison code
    resolve_factory(spec)       the sandbox factory a test names as "module:function", or None
    one_thread()                torch on one intra-op thread (parallelism comes from processes)
    warm_up_autograd()          the first backward pass's imports, done before the first check
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from typing import Any, Callable

from grader.courseroot import checks_dir as checks_dir_of
from grader.courseroot import course_root

ENGINE = Path(__file__).resolve().parent


class BatchError(Exception):
    """The batch cannot run (bad arguments, a broken roster, a worker that died)."""


def checks_hash(checks_dir: Path | None = None) -> str:
    """sha256 over the checks, the references, the mistakes and the comparison code."""
    checks_dir = Path(checks_dir or checks_dir_of(course_root()))
    files = (
        sorted(checks_dir.rglob("*.py"))
        + sorted((course_root() / "solutions").rglob("*.py"))
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


def _course_torch():
    """torch when the course requires it (`requires:` in course.yaml), else None (never imported)."""
    from grader import course_requires

    if not course_requires.uses(course_requires.course_requirements(), "torch"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch


def one_thread() -> None:
    """Parallelism comes from workers; torch's intra-op threads only contend with them."""
    torch = _course_torch()
    if torch is not None:
        torch.set_num_threads(1)


def warm_up_autograd() -> None:
    """The first backward pass imports torch's symbolic-shape machinery (seconds); do it while
    the worker starts rather than inside the first check that uses autograd (courses with torch)."""
    torch = _course_torch()
    if torch is not None:
        torch.ones(1, requires_grad=True).sum().backward()
