"""Loading a course's plugin modules (`content/plugins/*.py`) into the engine's registries.

The registries live with the parts of the engine that read them (coursegen.drawing,
coursegen.quiz.answers, coursegen.selfcheck_cases), each made by `registry()`, so that
`load_plugins` can empty them all before another course's plugins fill them. This module
imports none of those parts: they import it, to load the plugins on first use, and
coursegen.plugin (the names a plugin module uses) imports them all. Imports go one way.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from coursegen.errors import ContentError, Location

PLUGIN_DIR = Path("content") / "plugins"
MODULE_PREFIX = "coursegen_course_plugins"
_REGISTRIES: list[dict[Any, Any]] = []  # every registry() made, emptied together
_loaded: tuple[Path, ...] | None = None  # the plugin files whose registrations are in force


def registry() -> dict[Any, Any]:
    """A new, empty registry that plugin modules fill and `load_plugins` empties."""
    made: dict[Any, Any] = {}
    _REGISTRIES.append(made)
    return made


def plugin_files(root: str | Path) -> list[Path]:
    """The course's plugin modules, in the order they are imported."""
    folder = Path(root) / PLUGIN_DIR
    return sorted(folder.glob("*.py")) if folder.is_dir() else []


def load_plugins(root: str | Path | None = None) -> Path:
    """Import the plugin modules of the course at `root` once; a course with other plugin files
    replaces what an earlier one registered. Without `root`: the plugins already in force, else
    those of the active course root. A module that fails to import is a
    ContentError naming its file and line."""
    global _loaded
    if root is None:
        from grader.courseroot import course_root

        if _loaded is not None:
            return course_root()  # some course's plugins are in force: keep them
        root = course_root()
    resolved = Path(root).resolve()
    files = tuple(p.resolve() for p in plugin_files(resolved))
    if _loaded == files:
        return resolved  # these very modules are loaded (courses may share plugin files)
    for made in _REGISTRIES:
        made.clear()
    for name in [m for m in sys.modules if m.startswith(MODULE_PREFIX + ".")]:
        del sys.modules[name]
    _loaded = None
    for path in files:
        _import(path)
    _loaded = files
    return resolved


def _import(path: Path) -> None:
    name = f"{MODULE_PREFIX}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        line = frames[-1].lineno if frames else 0
        raise ContentError(
            Location(str(path), line or 0), f"plugin module failed to import: {type(exc).__name__}: {exc}"
        ) from exc
