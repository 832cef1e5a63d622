"""The course root: the one folder a command works on (`--root`, default the current folder).

A course root holds `content/`, `exercises/` (stubs and `registry.py`), `solutions/` (references
and `mistakes/`), `grader/checks/` and optionally `templates/`. The engine imports the course's
modules (`exercises`, `solutions`) from there, never from site-packages: `use_course_root(root)`
puts the root first on `sys.path` and forgets course modules imported from anywhere else.
"""

from __future__ import annotations

import sys
from pathlib import Path

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
        if name.split(".")[0] in COURSE_PACKAGES:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if not file.startswith(str(resolved) + "/"):
                del sys.modules[name]
    _active = resolved
    return resolved


def course_root() -> Path:
    """The course the engine works on: the one given to use_course_root, else the current folder."""
    return _active or Path.cwd()


def checks_dir(root: str | Path) -> Path:
    """Where a course keeps its checks."""
    return Path(root).resolve() / "grader" / "checks"
