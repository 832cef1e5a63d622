"""The figures of this course (a coursegen plugin module): one `@figure` function per kind.

A lesson's figure block names a kind and gives keyword parameters; each drawing function's
signature is the list of parameters it accepts, with their defaults and types, so the engine
reports an unknown or mistyped parameter before anything is drawn (`check=` adds checks of the
values; `sources=` names course files whose content also decides the figure, for its cache key).
Data is computed with numpy alone (no torch, except the capstone's training, in a child process),
the text inside a figure is language-neutral (symbols and numbers: captions are bilingual HTML).
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


@figure
def lm_head_matmul(*, seq_len: int = 4, d_model: int = 3, vocab_size: int = 8, seed: int = 0):
    """hidden [S, D] @ W^T [D, V] = logits [S, V], with W the same [V, D] table as the input embedding."""
    np, plt = numpy(), pyplot()
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(vocab_size, d_model)).round(1)            # W [V, D]
    hidden = rng.normal(size=(seq_len, d_model)).round(1)              # h [S, D]
    logits = hidden @ table.T                                          # [S, V]
    # A fixed layout (no constrained layout): its solver's last-digit jitter would change the SVG's clip ids.
    fig, axes = plt.subplots(1, 4, figsize=(9.2, 2.9),
                             gridspec_kw={"width_ratios": [vocab_size * 0.55, d_model, vocab_size, vocab_size],
                                          "wspace": 0.45, "left": 0.05, "right": 0.99})
    panels = [(table, f"$W$  [{vocab_size}, {d_model}]", "d", "v"), (hidden, f"$h$  [{seq_len}, {d_model}]", "d", "s"),
              (table.T, f"$W^T$  [{d_model}, {vocab_size}]", "v", "d"),
              (logits, f"$h W^T$  [{seq_len}, {vocab_size}]", "v", "s")]
    for ax, (data, title, xlabel, ylabel) in zip(axes, panels):
        limit = max(abs(data).max(), 1e-9)
        ax.imshow(data, cmap="coolwarm", vmin=-limit, vmax=limit, aspect="equal")
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_xticks(range(data.shape[1]))
        ax.set_yticks(range(data.shape[0]))
    best = logits.argmax(axis=1)
    for s_index, v_index in enumerate(best):                             # the top-scoring token per position
        axes[3].add_patch(plt.Rectangle((v_index - 0.5, s_index - 0.5), 1, 1, fill=False, lw=2, ec="black",
                                        clip_on=False))   # a clip path would get a per-process id in the SVG
    return fig


@figure
def causal_mask(*, seq_len: int = 6):
    """Left: the causal mask (query i may attend key j <= i). Right: softmax of equal scores under it."""
    np, plt = numpy(), pyplot()
    i = np.arange(seq_len)
    allowed = i[None, :] <= i[:, None]
    weights = np.where(allowed, 1.0, 0.0) / allowed.sum(axis=1, keepdims=True)
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.8, 3.2), gridspec_kw={"wspace": 0.3})   # fixed layout
    left.imshow(allowed, cmap="Greys", vmin=0, vmax=1.4)
    right_image = right.imshow(np.where(allowed, weights, np.nan), cmap="viridis", vmin=0, vmax=1)
    for ax, title in ((left, "j ≤ i"), (right, "softmax")):
        ax.set_title(title)
        ax.set_xlabel("j")
        ax.set_ylabel("i")
        ax.set_xticks(range(seq_len))
        ax.set_yticks(range(seq_len))
    for row in range(seq_len):
        for col in range(row + 1):
            right.text(col, row, f"{weights[row, col]:.2f}".lstrip("0"), ha="center", va="center", fontsize=7,
                       color="white" if weights[row, col] < 0.6 else "black")
    fig.colorbar(right_image, ax=right, shrink=0.8)
    return fig


@figure
def rope_decay(*, d: int = 128, bases: list = (10000.0, 500000.0), max_distance: int = 4096):
    """RoFormer's long-term decay: the relative upper bound (2/d) * sum_j |sum_{k<j} e^(i r theta_k)|
    of the RoPE score against the distance r, one curve per base (log-scaled distance axis)."""
    np, plt = numpy(), pyplot()
    distance = np.unique(np.round(np.geomspace(1, max_distance, 400)))
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for base in bases:
        theta = float(base) ** (-2 * np.arange(d // 2) / d)               # [d/2]
        partial = np.cumsum(np.exp(1j * distance[:, None] * theta[None, :]), axis=1)   # [R, d/2]
        bound = np.abs(partial).mean(axis=1)                               # (2/d) sum_j |S_j|
        ax.plot(distance, bound, lw=1.4, label=f"base = {float(base):,.0f}")
    ax.set_xscale("log")
    ax.set_xlabel("r = |m - n|")
    ax.set_ylabel("(2/d) Σⱼ |Sⱼ(r)|")
    ax.set_title(f"d = {d}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


@figure
def capstone_loss_curves(*, methods: list = ("none", "sinusoidal", "learned", "rope", "alibi"), window: int = 10,
                         results: dict | None = None):
    """Training loss per step of the capstone TinyLM for each position method, drawn from the
    lesson's experiment (`experiment:` on the figure block; content/plugins/experiments.py): per
    method the mean over the seeds of the 10-step running mean, and a band from the lowest to the
    highest seed. The build process never imports torch: the runs happen in child processes."""
    np, plt = numpy(), pyplot()
    if results is None:
        raise ValueError("capstone_loss_curves is drawn from an experiment: give the figure block `experiment:`")
    fig, ax = plt.subplots(figsize=(6.8, 3.8))
    for method in methods:
        runs = results["arms"][str(method)]["runs"]
        curves = np.asarray([run["losses"] for run in runs])                   # [seeds, steps]
        kernel = np.ones(window) / window
        smooth = np.asarray([np.convolve(c, kernel, mode="valid") for c in curves])
        steps = np.arange(window, curves.shape[1] + 1)
        line, = ax.plot(steps, smooth.mean(axis=0), lw=1.6)
        ax.fill_between(steps, smooth.min(axis=0), smooth.max(axis=0), color=line.get_color(), alpha=0.15, lw=0)
        finals = np.asarray([run["final"] for run in runs])
        line.set_label(f"{method}: {finals.mean():.2f} ± {finals.std(ddof=1):.2f}")
    for floor, style in ((0.340, ":"), (0.718, "--")):
        ax.axhline(floor, color="0.4", lw=0.8, ls=style)
        ax.text(1, floor + 0.02, f"{floor:.3f}", fontsize=7, color="0.3", va="bottom")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, ncols=2, loc="upper right")
    ax.grid(alpha=0.3)
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
