"""The active course root: the folder the last command was given (`--root`), as global state.

Being retired (issue 26): the grader is handed its course (grader.course.Course) and reads nothing
here; what still does are the parts of coursegen/ not yet handed their course (plugin loading,
`coursegen new`'s student guide, grader.course.current()'s callers). A course root holds `content/`,
`exercises/` (stubs and `registry.py`), `solutions/` (references and `mistakes/`), `grader/checks/`
and optionally `templates/`; its code is loaded by path (grader.course), so nothing here touches
`sys.path`.
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
