"""Figures drawn at build time, the engine side: the registry the course's `@figure` functions
fill (content/plugins/, see coursegen/plugin.py), parameter checks, caching and deterministic SVG.

The SVG is deterministic (fixed hash salt, no date) so that two builds give the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import json
from pathlib import Path
from typing import Any, Callable

from coursegen.plugin_loading import load_plugins, registry

FIGURE_VERSION = "3"  # bump to invalidate cached figures when the drawing code changes

FIGURES: dict[str, Callable] = registry()  # kind -> drawing function (filled by the course's plugins)
# Checks of parameter values beyond their types: kind -> function(all values) -> [(param name or
# (name, list index), message)].
VALUE_CHECKS: dict[str, Callable[[dict[str, Any]], list]] = registry()
# Files whose content decides a figure beyond its own source and parameters: kind -> {name as
# given (relative to the course root): absolute path}. They enter its cache key.
EXTRA_SOURCES: dict[str, dict[str, Path]] = registry()


def figure(
    func: Callable | None = None,
    *,
    check: Callable[[dict[str, Any]], list] | None = None,
    sources: tuple[str, ...] = (),
) -> Callable:
    """Register a drawing function under its name (`@figure` or `@figure(check=..., sources=...)`):
    keyword-only parameters with defaults, returns a matplotlib Figure. `check(values)` returns
    [(param name or (name, list index), message)] for values its types allow but the figure cannot
    draw; `sources` are course files (relative to the course root) whose content also decides it."""

    def register(function: Callable) -> Callable:
        if function.__name__ in FIGURES:
            raise ValueError(f"figure '{function.__name__}' is defined twice")
        FIGURES[function.__name__] = function
        if check is not None:
            VALUE_CHECKS[function.__name__] = check
        if sources:
            root = Path(function.__code__.co_filename).resolve().parents[2]  # content/plugins/<file>.py
            EXTRA_SOURCES[function.__name__] = {name: root / name for name in sources}
        return function

    return register(func) if func is not None else register


def figures() -> dict[str, Callable]:
    """The course's figure kinds (its plugin modules loaded on first use)."""
    load_plugins()
    return FIGURES


def numpy():
    import numpy

    return numpy


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.hashsalt": "coursegen",
            "svg.fonttype": "path",
            "font.size": 9,
            "figure.dpi": 100,
        }
    )
    return plt


# ---- checking and drawing ------------------------------------------------------------------


def check_params(kind: str, params: dict[str, Any]) -> list[tuple[str | tuple, str]]:
    """Problems with a figure's params, as (where, message); `where` is a param name, a
    (param name, list index) pair, or "" for the figure kind itself."""
    function = figures().get(kind)
    if function is None:
        known = (
            f"expected one of: {', '.join(FIGURES)}"
            if FIGURES
            else "this course defines no figure: add @figure functions in content/plugins/"
        )
        return [("", f"unknown figure kind '{kind}' ({known})")]
    accepted = inspect.signature(function).parameters
    problems: list[tuple[str | tuple, str]] = []
    for name, value in params.items():
        if name not in accepted:
            problems.append(
                (name, f"unknown parameter '{name}' for figure '{kind}' (expected one of: {', '.join(accepted)})")
            )
            continue
        expected = param_type(accepted[name].default)
        if not _matches(value, expected):
            problems.append(
                (
                    name,
                    f"parameter '{name}' of figure '{kind}' must be {expected.__name__}, "
                    f"got {type(value).__name__} {value!r}",
                )
            )
    if problems or kind not in VALUE_CHECKS:
        return problems
    values = {name: p.default for name, p in accepted.items()} | params
    return [(where, f"figure '{kind}': {message}") for where, message in VALUE_CHECKS[kind](values)]


def param_type(default: Any) -> type:
    """The type a parameter accepts, from its default (a tuple default means a list)."""
    if isinstance(default, bool):
        return bool
    if isinstance(default, (tuple, list)):
        return list
    return type(default)


def _matches(value: Any, expected: type) -> bool:
    if expected is bool:
        return isinstance(value, bool)
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is list:
        return isinstance(value, list)
    return isinstance(value, expected)


def cache_key(kind: str, params: dict[str, Any]) -> str:
    """A hash of everything that decides the figure's bytes."""
    extra = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in EXTRA_SOURCES.get(kind, {}).items()}
    if extra:  # a figure computed by training with torch: its version changes the numbers
        from importlib.metadata import version

        extra["torch"] = version("torch")
    payload = json.dumps(
        {
            "kind": kind,
            "params": params,
            "figure_version": FIGURE_VERSION,
            "source": inspect.getsource(figures()[kind]),
            **_library_versions(),
            **extra,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def _library_versions() -> dict[str, str]:
    from importlib.metadata import version

    return {"matplotlib": version("matplotlib"), "numpy": version("numpy")}


def draw_svg(kind: str, params: dict[str, Any], results: Any = None) -> str:
    """The figure as an SVG string (no XML prolog, ready to inline in HTML); `results`: those of
    the experiment the figure block names, passed as `results=`."""
    plt = pyplot()
    fig = figures()[kind](**params) if results is None else figures()[kind](**params, results=results)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    svg = buffer.getvalue()
    start = svg.find("<svg")
    return svg[start:].strip() + "\n"
