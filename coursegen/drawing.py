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
import warnings
from pathlib import Path
from typing import Any, Callable

from coursegen.plugin_loading import Registrations, course_root_of

FIGURE_VERSION = "3"  # bump to invalidate cached figures when the drawing code changes

FIGURES: Registrations[Callable] = Registrations()  # kind -> drawing function, per course
# Checks of parameter values beyond their types: kind -> function(all values) -> [(param name or
# (name, list index), message)].
VALUE_CHECKS: Registrations[Callable[[dict[str, Any]], list]] = Registrations()
# Files whose content decides a figure beyond its own source and parameters: kind -> {name as
# given (relative to the course root): absolute path}. They enter its cache key.
EXTRA_SOURCES: Registrations[dict[str, Path]] = Registrations()


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
        module, name = function.__module__, function.__name__
        if name in FIGURES.of_module(module):
            raise ValueError(f"figure '{name}' is defined twice")
        FIGURES.of_module(module)[name] = function
        if check is not None:
            VALUE_CHECKS.of_module(module)[name] = check
        if sources:
            root = course_root_of(module)
            assert root is not None  # of_module() above accepts plugin modules only
            EXTRA_SOURCES.of_module(module)[name] = {source: root / source for source in sources}
        return function

    return register(func) if func is not None else register


def figures(root: str | Path) -> dict[str, Callable]:
    """The figure kinds of the course at `root` (its plugin modules loaded on first use)."""
    return FIGURES.of(root)


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


def check_params(root: str | Path, kind: str, params: dict[str, Any]) -> list[tuple[str | tuple, str]]:
    """Problems with the params of a figure of the course at `root`, as (where, message); `where`
    is a param name, a (param name, list index) pair, or "" for the figure kind itself."""
    known_figures = figures(root)
    function = known_figures.get(kind)
    if function is None:
        known = (
            f"expected one of: {', '.join(known_figures)}"
            if known_figures
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
    value_check = VALUE_CHECKS.of(root).get(kind)
    if problems or value_check is None:
        return problems
    values = {name: p.default for name, p in accepted.items()} | params
    return [(where, f"figure '{kind}': {message}") for where, message in value_check(values)]


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


def cache_key(root: str | Path, kind: str, params: dict[str, Any]) -> str:
    """A hash of everything that decides the bytes of a figure of the course at `root`."""
    sources = EXTRA_SOURCES.of(root).get(kind, {})
    extra = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in sources.items()}
    if extra:  # a figure computed by training with torch: its version changes the numbers
        from importlib.metadata import version

        extra["torch"] = version("torch")
    payload = json.dumps(
        {
            "kind": kind,
            "params": params,
            "figure_version": FIGURE_VERSION,
            "source": inspect.getsource(figures(root)[kind]),
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


# A figure on a slide: the room it gets there (px of the 1280x720 slide; templates/assets/slides.css,
# `.figure-image svg`: 1100 x 520, 480 on a slide fitted one step for a two-line caption, 440 two
# steps), and how tall its tick labels are there at least. Sized for the one-step room, the labels
# stay at 18 px or more down to the second step.
DECK_BOX_PX = (1100.0, 480.0)
DECK_TICK_PX = 20.0


def deck_sized(fig) -> None:
    """Make `fig` (as its drawing function returned it) a deck figure: a figure whose axes all
    stretch (no fixed aspect, e.g. line plots) takes the slide's wide aspect; then every text is
    enlarged by one factor until the tick labels are DECK_TICK_PX tall once the figure is scaled
    into DECK_BOX_PX (the same data and drawing; only sizes change)."""
    from matplotlib.text import Text

    box_w, box_h = DECK_BOX_PX
    width, height = fig.get_size_inches()
    if fig.axes and all(ax.get_aspect() == "auto" for ax in fig.axes) and width / height < box_w / box_h:
        fig.set_size_inches(width, width * box_h / box_w)
    # Room for the larger labels is made by tight_layout, unless the figure has its own layout engine
    # or an axes that tight_layout cannot place (a colorbar beside the panels).
    relayout = fig.get_layout_engine() is None and all(ax.get_subplotspec() is not None for ax in fig.axes)
    for _ in range(6):
        fig.draw_without_rendering()
        ticks = [
            label
            for ax in fig.axes
            for axis in (ax.xaxis, ax.yaxis)
            for label in axis.get_ticklabels(which="both")
            if label.get_visible() and label.get_text()
        ]
        if not ticks:
            return
        bbox = fig.get_tightbbox()  # inches: what savefig(bbox_inches="tight") keeps
        px_per_pt = min(box_w / (bbox.width * 72), box_h / (bbox.height * 72))
        smallest = min(label.get_fontsize() for label in ticks) * px_per_pt
        if smallest >= DECK_TICK_PX:
            return
        factor = DECK_TICK_PX * 1.03 / smallest
        tick_ids = {id(label) for label in ticks}
        for ax in fig.axes:
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                for which in ("major", "minor"):
                    shown = axis.get_ticklabels(which=which)
                    if shown:
                        ax.tick_params(axis=name, which=which, labelsize=shown[0].get_fontsize() * factor)
        for text in fig.findobj(Text):
            if id(text) not in tick_ids:
                text.set_fontsize(text.get_fontsize() * factor)
        if relayout:
            with warnings.catch_warnings():  # a fixed grid of equal-aspect panels: placed as well as it can
                warnings.simplefilter("ignore", UserWarning)
                fig.tight_layout()


def deck_version() -> str:
    """What decides a deck rendition beyond its figure's own cache key: deck_sized and its sizes."""
    text = inspect.getsource(deck_sized) + repr((DECK_BOX_PX, DECK_TICK_PX))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def draw_svg(root: str | Path, kind: str, params: dict[str, Any], results: Any = None, *, deck: bool = False) -> str:
    """A figure of the course at `root` as an SVG string (no XML prolog, ready to inline in HTML);
    `results`: those of the experiment the figure block names, passed as `results=`; `deck`: the
    slide rendition (deck_sized)."""
    plt = pyplot()
    draw = figures(root)[kind]
    fig = draw(**params) if results is None else draw(**params, results=results)
    if deck:
        deck_sized(fig)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    svg = buffer.getvalue()
    start = svg.find("<svg")
    return svg[start:].strip() + "\n"
