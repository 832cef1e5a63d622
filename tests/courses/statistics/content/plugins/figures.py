"""The course's figures: one @figure function per kind a lesson can name. Symbols and numbers only;
the words are in each figure's bilingual caption and alt text."""
from __future__ import annotations

from coursegen.plugin import figure, pyplot


def _mean(values: list) -> float:
    return sum(values) / len(values)


def _median(values: list) -> float:
    ordered = sorted(values)
    n = len(ordered)
    return (ordered[(n - 1) // 2] + ordered[n // 2]) / 2


def _check_values(values: dict) -> list:
    data = values.get("values", ())
    return [] if len(data) >= 2 else [("values", "needs at least two numbers")]


@figure(check=_check_values)
def dot_plot(*, values: list = (2.0, 3.0, 3.0, 4.0, 5.0, 11.0)):
    """The values as dots on a number line, the mean (triangle) and the median (bar) marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 1.8))
    seen: dict[float, int] = {}
    for value in values:
        seen[value] = seen.get(value, 0) + 1
        ax.plot(value, seen[value], "o", color="#1f77b4", markersize=9)
    ax.plot(_mean(values), 0, "^", color="#d62728", markersize=12)
    ax.axvline(_median(values), color="#2ca02c", linewidth=2)
    ax.text(_mean(values), -0.9, "x̄", ha="center", color="#d62728")
    span = max(values) - min(values)
    ax.text(_median(values) + 0.02 * span, max(seen.values()) + 0.6, "m", ha="left", color="#2ca02c")
    ax.set_ylim(-1.2, max(seen.values()) + 1.2)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    return fig


@figure(check=_check_values)
def squared_deviations(*, values: list = (2.0, 4.0, 4.0, 5.0, 7.0, 8.0)):
    """Each value's deviation from the mean, and its square as a bar."""
    plt = pyplot()
    centre = _mean(values)
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.0, 2.6))
    positions = list(range(len(values)))
    left.bar(positions, [v - centre for v in values], color="#1f77b4")
    left.axhline(0, color="black", linewidth=1)
    left.set_title("xᵢ − x̄")
    right.bar(positions, [(v - centre) ** 2 for v in values], color="#ff7f0e")
    right.set_title("(xᵢ − x̄)²")
    for ax in (left, right):
        ax.set_xticks(positions, [f"x{chr(0x2080 + i + 1)}" if i < 9 else f"x{i + 1}" for i in positions])
    return fig
