"""The figures of this course (a coursegen plugin module): one `@figure` function per kind.

A lesson's figure block names a kind and gives keyword parameters; each drawing function's
signature is the list of parameters it accepts, with their defaults and types, so the engine
reports an unknown or mistyped parameter before anything is drawn (`check=` adds checks of the
values). Data is computed with numpy alone (no torch), the text inside a figure is
language-neutral (symbols and numbers: captions are bilingual HTML).
"""
from __future__ import annotations

import math
from typing import Any

from coursegen.plugin import figure, numpy, pyplot

@figure
def embedding_lookup(*, vocab_size: int = 8, d_model: int = 6, ids: list = (3, 1, 3, 6), seed: int = 0):
    """Token ids picking rows of a [V, D] embedding table."""
    np, plt = numpy(), pyplot()
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab_size, d_model)).round(2)
    ids = [int(i) for i in ids]
    # Constrained layout makes room for the right panel's long row labels ("s=0: id 2"),
    # which would otherwise be drawn over the left panel.
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.6), gridspec_kw={"width_ratios": [1.2, 1]},
                                      layout="constrained")
    left.imshow(table, cmap="coolwarm", vmin=-2.5, vmax=2.5, aspect="auto")
    left.set_title(f"W  [{vocab_size}, {d_model}]")
    left.set_yticks(range(vocab_size))
    left.set_xticks(range(d_model))
    left.set_ylabel("id")
    left.set_xlabel("d")
    for row in sorted(set(ids)):
        left.add_patch(plt.Rectangle((-0.5, row - 0.5), d_model, 1, fill=False, lw=2.5, ec="black"))
    right.imshow(table[ids], cmap="coolwarm", vmin=-2.5, vmax=2.5, aspect="auto")
    right.set_title(f"W[ids]  [{len(ids)}, {d_model}]")
    right.set_yticks(range(len(ids)), [f"s={s}: id {i}" for s, i in enumerate(ids)])
    right.set_xticks(range(d_model))
    right.set_xlabel("d")
    return fig


@figure
def sinusoidal_heatmap(*, seq_len: int = 64, d_model: int = 64, base: float = 10000.0):
    """PE[pos, dim] of the sinusoidal encoding as a heatmap."""
    np, plt = numpy(), pyplot()
    pe = _sinusoidal(np, seq_len, d_model, base)
    fig, ax = plt.subplots(figsize=(7, 4))
    image = ax.imshow(pe, cmap="RdBu", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_xlabel("dim")
    ax.set_ylabel("pos")
    fig.colorbar(image, ax=ax, label="PE")
    return fig


@figure
def sinusoidal_wavelengths(*, d_model: int = 64, base: float = 10000.0, positions: int = 100,
                           pairs: list = (0, 4, 8, 16)):
    """Left: the wavelength 2*pi*base^(2i/D) of every dimension pair (log scale).
    Right: sin(pos * w_i) for a few pairs across positions."""
    np, plt = numpy(), pyplot()
    i = np.arange(d_model // 2)
    wavelength = 2 * math.pi * base ** (2 * i / d_model)
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.4))
    left.semilogy(i, wavelength, marker=".", lw=1)
    left.set_xlabel("i  (dims 2i, 2i+1)")
    left.set_ylabel("λ = 2π·base^(2i/D)")
    pos = np.arange(positions)
    for pair in pairs:
        right.plot(pos, np.sin(pos / base ** (2 * int(pair) / d_model)), lw=1.2, label=f"i={pair}")
    right.set_xlabel("pos")
    right.set_ylabel("sin(pos·ω_i)")
    right.legend(loc="lower left", fontsize=8)
    return fig


@figure
def rope_rotation(*, x: list = (1.0, 0.5), positions: int = 8, pair: int = 0, d: int = 8,
                  base: float = 10000.0):
    """One 2-D pair (x0, x1) rotated by p * base^(-2i/d) for p = 0..positions-1."""
    np, plt = numpy(), pyplot()
    theta = base ** (-2 * pair / d)
    x0, x1 = float(x[0]), float(x[1])
    fig, ax = plt.subplots(figsize=(4.6, 4.6))
    radius = math.hypot(x0, x1)
    circle = np.linspace(0, 2 * math.pi, 200)
    ax.plot(radius * np.cos(circle), radius * np.sin(circle), color="0.8", lw=1)
    colors = plt.cm.viridis(np.linspace(0, 1, positions))
    for p in range(positions):
        a = p * theta
        y0, y1 = x0 * math.cos(a) - x1 * math.sin(a), x0 * math.sin(a) + x1 * math.cos(a)
        ax.annotate("", xy=(y0, y1), xytext=(0, 0), arrowprops={"arrowstyle": "->", "color": colors[p], "lw": 1.6})
        ax.text(y0 * 1.12, y1 * 1.12, f"p={p}", ha="center", va="center", fontsize=8)
    limit = radius * 1.35
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.axvline(0, color="0.6", lw=0.6)
    ax.set_xlabel("x₀")
    ax.set_ylabel("x₁")
    ax.set_title(f"θ = {theta:g} rad / position")
    return fig


MAX_ALIBI_PANELS = 8


@figure(check=lambda values: _check_alibi_values(values))
def alibi_bias(*, n_heads: int = 4, seq_len: int = 8, causal: bool = False, heads: list = ()):
    """The ALiBi bias -slope_h * |i - j| for several heads, one heatmap per head.
    `heads`: which heads of the n_heads to draw (indices, at most MAX_ALIBI_PANELS); default all."""
    np, plt = numpy(), pyplot()
    slopes = _alibi_slopes(n_heads)
    shown = [int(h) for h in heads] or list(range(n_heads))
    distance = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])
    fig, axes = plt.subplots(1, len(shown), figsize=(2.3 * len(shown) + 0.8, 2.8), squeeze=False)
    low = -max(slopes[h] for h in shown) * (seq_len - 1)
    image = None
    for panel, (h, ax) in enumerate(zip(shown, axes[0])):
        bias = -slopes[h] * distance
        if causal:
            bias = np.where(np.arange(seq_len)[None, :] > np.arange(seq_len)[:, None], np.nan, bias)
        image = ax.imshow(bias, cmap="viridis", vmin=low, vmax=0, interpolation="nearest")
        ax.set_title(f"h={h}, m={slopes[h]:g}", fontsize=9)
        ax.set_xlabel("j")
        if panel == 0:
            ax.set_ylabel("i")
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8)
    return fig


# ---- helpers -------------------------------------------------------------------------------

def _sinusoidal(np, seq_len: int, d_model: int, base: float):
    pos = np.arange(seq_len)[:, None]
    i = np.arange(0, d_model, 2)[None, :]
    angle = pos / base ** (i / d_model)
    pe = np.zeros((seq_len, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def _alibi_slopes(n_heads: int) -> list[float]:
    def power_of_two(n: int) -> list[float]:
        return [2 ** (-8 * (h + 1) / n) for h in range(n)]

    if math.log2(n_heads).is_integer():
        return power_of_two(n_heads)
    lower = 2 ** math.floor(math.log2(n_heads))
    return power_of_two(lower) + power_of_two(2 * lower)[0::2][: n_heads - lower]



def _check_alibi_values(values: dict[str, Any]) -> list[tuple[str | tuple, str]]:
    n_heads, heads = values["n_heads"], list(values["heads"])
    problems: list[tuple[str | tuple, str]] = []
    for name in ("n_heads", "seq_len"):
        if values[name] < 1:
            problems.append((name, f"'{name}' must be at least 1, got {values[name]}"))
    for index, head in enumerate(heads):
        if not isinstance(head, int) or isinstance(head, bool) or not 0 <= head < max(n_heads, 1):
            problems.append((("heads", index), f"head index {head!r} is not an integer from 0 to "
                                               f"{n_heads - 1} (n_heads is {n_heads})"))
        elif head in heads[:index]:
            problems.append((("heads", index), f"head {head} is listed twice in 'heads'"))
    shown = len(heads) if heads else n_heads
    if shown > MAX_ALIBI_PANELS:
        where = "heads" if heads else "n_heads"
        problems.append((where, f"at most {MAX_ALIBI_PANELS} heads fit in the figure, got {shown}: "
                                f"choose some with 'heads', e.g. heads: [0, 1, {n_heads - 1}]"))
    return problems
