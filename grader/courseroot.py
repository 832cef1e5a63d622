"""The course root: the one folder a command works on (`--root`, default the current folder).

A course root holds `content/`, `exercises/` (stubs and `registry.py`), `solutions/` (references
and `mistakes/`), `grader/checks/` and optionally `templates/`. The engine imports the course's
modules (`exercises`, `solutions`) from there, never from site-packages: `use_course_root(root)`
puts the root first on `sys.path` and forgets course modules imported from anywhere else.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

COURSE_PACKAGES = ("exercises", "solutions")
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
    if _active is not None and str(_active) in sys.path:
        sys.path.remove(str(_active))
    sys.path.insert(0, str(resolved))
    for name in list(sys.modules):
        package = name.split(".")[0]
        if package in COURSE_PACKAGES and (resolved / package / "__init__.py").is_file():
            file = getattr(sys.modules[name], "__file__", None) or ""
            if not file.startswith(str(resolved) + "/"):
                del sys.modules[name]
    _active = resolved
    return resolved


@contextmanager
def temporary_course_root(root: str | Path) -> Iterator[Path]:
    """Make `root` the active course for the block, then give back the course that was active
    before: `sys.path`, the active root and the course modules imported (a command that reads a
    second course, e.g. `coursegen new` writing its student guide, leaves the caller's course as
    it was)."""
    global _active
    saved_path, saved_active = list(sys.path), _active
    saved_modules = {n: m for n, m in sys.modules.items() if n.split(".")[0] in COURSE_PACKAGES}
    try:
        yield use_course_root(root)
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] in COURSE_PACKAGES]:
            del sys.modules[name]
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
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
