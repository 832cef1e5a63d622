"""The report's figures: matplotlib SVG, inlined, byte-identical for the same data.

Text inside a figure stays language-neutral (numbers, %), so no CJK font is needed; the
bilingual captions are HTML. Determinism: a fixed `svg.hashsalt`, no date in the metadata,
paths instead of fonts, and ids prefixed per figure (coursegen.pages.accessible_svg).
"""

from __future__ import annotations

import io

from .stats import histogram

BINS = 10
COLOUR = "#3b6fb6"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "coursegen-report", "svg.fonttype": "path", "font.size": 8, "figure.dpi": 100})
    return plt


def _svg(fig) -> str:
    plt = _pyplot()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.find("<svg") :].strip()


def score_distribution(shares: list[float]) -> str:
    """A bar per 10% band of the score (share of the exercise's points), height = students."""
    plt = _pyplot()
    counts = histogram(shares, BINS)
    fig, ax = plt.subplots(figsize=(3.6, 1.6))
    ax.bar([i + 0.5 for i in range(BINS)], counts, width=0.9, color=COLOUR)
    ax.set_xlim(0, BINS)
    ax.set_xticks(range(0, BINS + 1, 2), [f"{10 * i}%" for i in range(0, BINS + 1, 2)])
    ax.set_ylim(0, max(counts + [1]) * 1.1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(length=2)
    return _svg(fig)


def shares_bar(labels: list[str], shares: list[float]) -> str:
    """Horizontal bars (share 0..1) for the misconceptions, largest on top; labels are ids."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 0.22 * len(labels) + 0.5))
    positions = list(range(len(labels)))[::-1]
    ax.barh(positions, [100 * s for s in shares], color=COLOUR, height=0.7)
    ax.set_yticks(positions, labels)
    ax.set_xlim(0, 100)
    ax.set_xticks(range(0, 101, 25), [f"{v}%" for v in range(0, 101, 25)])
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(length=2)
    return _svg(fig)
