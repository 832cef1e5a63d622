"""Each course's plugin modules (`content/plugins/*.py`), imported once per course, and what they
register, kept per course.

    load_plugins(root)          imports the course's plugin modules (sorted by name) the first time,
                                as `_coursegen_course_<hash of the root>_plugins.<file stem>`
    FIGURES = Registrations()   one kind of registration (coursegen.drawing, coursegen.quiz.answers,
                                coursegen.selfcheck_cases, coursegen.claims each make theirs)
    FIGURES.of(root)            what that course's plugins registered: its plugins loaded on first use
    FIGURES.of_module(name)     the same, for the course whose plugin module `name` is (a decorator's)

Two courses' plugins are in force side by side: each course's modules live under a package of its
own and every registration is filed under the course of the module that makes it, so a course never
sees another's. The package is named after the course's code package (grader.course), so what keeps
a course's code from student code (the sandbox forgets and never sends `_coursegen_course_*`
modules) keeps its plugins too. Courses that share plugin files (a test course whose content/plugins links to
another course's) still import them once each: a plugin calls `reference()` and `from_mistakes()`,
which answer for the course that imported it (`calling_course_root`).

This module imports none of the parts that read registrations: they import it, and
coursegen.plugin (the names a plugin module uses) imports them all. Imports go one way.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Generic, TypeVar

from coursegen.errors import ContentError, Location

PLUGIN_DIR = Path("content") / "plugins"
Registered = TypeVar("Registered")

_loaded: dict[str, Path] = {}  # package -> course root, for every course whose plugins are imported
_all_registrations: list[Registrations] = []


def plugin_files(root: str | Path) -> list[Path]:
    """The course's plugin modules, in the order they are imported."""
    folder = Path(root) / PLUGIN_DIR
    return sorted(folder.glob("*.py")) if folder.is_dir() else []


def package_name(root: str | Path) -> str:
    """The package the plugin modules of the course at `root` are imported under: its code
    package's name (`_coursegen_course_<hash of the root>`) + `_plugins`."""
    from grader.course import Course

    return Course.load(root).package + "_plugins"


def load_plugins(root: str | Path) -> str:
    """Import the plugin modules of the course at `root`, once; return their package's name.
    A module that fails to import is a ContentError naming its file and line, and leaves nothing
    of the course's plugins registered (the next call tries again)."""
    resolved = Path(root).resolve()
    package = package_name(resolved)
    if package in _loaded:
        return package
    _install_package(package, resolved)
    _loaded[package] = resolved
    try:
        for path in plugin_files(resolved):
            _import(package, path)
    except ContentError:
        forget_plugins(resolved)
        raise
    return package


def forget_plugins(root: str | Path) -> None:
    """Drop the plugin modules of the course at `root` and all they registered (they load afresh
    on next use)."""
    package = package_name(root)
    _loaded.pop(package, None)
    for registrations in _all_registrations:
        registrations.forget(package)
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def course_root_of(module_name: str) -> Path | None:
    """The root of the course whose plugin module `module_name` is; None for any other module."""
    return _loaded.get(module_name.split(".", 1)[0])


def calling_course_root(what: str) -> Path:
    """The root of the course whose plugin module (nearest on the call stack) calls `what`."""
    frame = sys._getframe(1)
    while frame is not None:
        root = course_root_of(frame.f_globals.get("__name__", ""))
        if root is not None:
            return root
        frame = frame.f_back  # type: ignore[assignment]
    raise RuntimeError(f"{what} is for a course's plugin modules (content/plugins/*.py): none of them called it")


class Registrations(Generic[Registered]):
    """One kind of registration (figure kinds, answer functions, ...): name -> value, per course."""

    def __init__(self) -> None:
        self._by_package: dict[str, dict[str, Registered]] = {}
        _all_registrations.append(self)

    def of(self, root: str | Path) -> dict[str, Registered]:
        """What the plugins of the course at `root` registered (loading them on first use)."""
        return self._by_package.setdefault(load_plugins(root), {})

    def of_module(self, module_name: str) -> dict[str, Registered]:
        """What the course of plugin module `module_name` registered so far (where a decorator
        applied in that module files its function)."""
        package = module_name.split(".", 1)[0]
        if package not in _loaded:
            raise ValueError(
                f"{module_name!r} is not a course's plugin module: plugins register from content/plugins/*.py"
            )
        return self._by_package.setdefault(package, {})

    def forget(self, package: str) -> None:
        self._by_package.pop(package, None)


def _install_package(package: str, root: Path) -> None:
    """The course's plugin package: its modules may import each other (`from .figures import x`)."""
    spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
    spec.submodule_search_locations = [str(root / PLUGIN_DIR)]
    module = importlib.util.module_from_spec(spec)
    module.__doc__ = f"the plugin modules of the course at {root}"
    sys.modules[package] = module


def _import(package: str, path: Path) -> None:
    name = f"{package}.{path.stem}"
    if name in sys.modules:
        return  # imported already by a plugin module before it
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        line = frames[-1].lineno if frames else 0
        raise ContentError(
            Location(str(path), line or 0), f"plugin module failed to import: {type(exc).__name__}: {exc}"
        ) from exc
