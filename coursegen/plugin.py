"""The plugin interface: how a course gives the engine its own code.

A course keeps its Python beside its content, in `content/plugins/*.py`. The engine imports
every module there (sorted by name) the first time it needs one of the registries below, from
the course root (`--root`, default the current folder). A plugin module uses only these names:

    @answer_function(name, kind)   a generated question's answer ("number" or "shape"), from the
                                   reference solutions; returns Generated(answer, wrong, facts)
    @oracle(name)                  the independent closed form that must agree with answer `name`
                                   (plain Python: no torch, no solutions, no answer helpers)
    reference(exercise)            the reference implementation of an exercise (solutions/)
    from_mistakes(exercise, fn)    distractors: fn run with each catalogued mistake
    Generated, Wrong, InvalidParams
    @figure / @figure(check=fn)    a figure kind drawn at build time: keyword-only parameters with
                                   defaults (their types are checked), returns a matplotlib Figure;
                                   numpy() and pyplot() give the libraries, configured
    selfchecks(SelfCheckSpec(exercise, cases=(Case(label, code), ...), properties=(Property(label, code),)))
                                   an exercise's public notebook self-check: a Case's code returns a
                                   value (the reference's, embedded at build time, is what the
                                   student's must equal), a Property's code calls _expect* helpers

Nothing of a course is defined in the engine: a course without plugins has no generated
questions, and `coursegen new` writes a course with one module of each kind.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path

from coursegen import drawing
from coursegen.drawing import figure, numpy, pyplot
from coursegen.errors import ContentError, Location
from coursegen import selfcheck_cases
from coursegen.quiz.answers import (
    ORACLES,
    REGISTRY,
    Generated,
    InvalidParams,
    Wrong,
    answer_function,
    from_mistakes,
    oracle,
    reference,
)
from coursegen.selfcheck_cases import Case, Property, SelfCheckSpec, selfchecks

__all__ = [
    "Case",
    "Property",
    "SelfCheckSpec",
    "selfchecks",
    "Generated",
    "InvalidParams",
    "PLUGIN_DIR",
    "Wrong",
    "answer_function",
    "figure",
    "from_mistakes",
    "load_plugins",
    "numpy",
    "oracle",
    "plugin_files",
    "pyplot",
    "reference",
]

PLUGIN_DIR = Path("content") / "plugins"
MODULE_PREFIX = "coursegen_course_plugins"
_loaded: tuple[Path, ...] | None = None  # the plugin files whose registrations are in force


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
    for registry in (
        REGISTRY,
        ORACLES,
        drawing.FIGURES,
        drawing.VALUE_CHECKS,
        drawing.EXTRA_SOURCES,
        selfcheck_cases.SPECS,
    ):
        registry.clear()
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
