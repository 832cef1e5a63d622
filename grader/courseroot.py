"""The course root: the one folder a command works on (`--root`, default the current folder).

A course root holds `content/`, `exercises/` (stubs and `registry.py`), `solutions/` (references
and `mistakes/`), `grader/checks/` and optionally `templates/`. `use_course_root(root)` makes it
the active course; its code is loaded by path (grader.course.current()), never imported by name,
so nothing here touches `sys.path`.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_active: Path | None = None


class CourseRootError(Exception):
    """The folder given as course root is not a course."""


def use_course_root(root: str | Path) -> Path:
    """Make `root` the course the engine reads (idempotent); returns it resolved."""
    global _active
    resolved = Path(root).resolve()
    if not resolved.is_dir():
        raise CourseRootError(f"{root}: no such folder (the course root holds content/, exercises/, solutions/)")
    if _active == resolved:
        return resolved
    _active = resolved
    return resolved


@contextmanager
def temporary_course_root(root: str | Path) -> Iterator[Path]:
    """Make `root` the active course for the block, then give back the course that was active
    before (a command that reads a second course, e.g. `coursegen new` writing its student guide,
    leaves the caller's course as it was)."""
    global _active
    saved_active = _active
    try:
        yield use_course_root(root)
    finally:
        _active = saved_active


def course_root() -> Path:
    """The course the engine works on: the one given to use_course_root (every command gives its
    --root); else, for the engine used as a library (a Dask worker, an exported autograder), the
    current folder when it is a course, or the folder of the importable `exercises` package."""
    if _active is not None:
        return _active
    here = Path.cwd()
    if (here / "exercises" / "registry.py").is_file():
        return here
    import importlib.util

    spec = importlib.util.find_spec("exercises")  # located, not imported
    if spec is not None and spec.origin:
        return Path(spec.origin).resolve().parent.parent
    return here


def checks_dir(root: str | Path) -> Path:
    """Where a course keeps its checks."""
    return Path(root).resolve() / "grader" / "checks"
