"""The course's figures: one @figure function per kind a lesson can name."""
from __future__ import annotations

from coursegen.plugin import figure, pyplot


@figure
def two_vectors(*, a: list = (2.0, 1.0), b: list = (1.0, 2.0)):
    """Two 2-D vectors drawn as arrows from the origin."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(3.2, 3.2))
    for vector, name in ((a, "a"), (b, "b")):
        ax.annotate("", xy=(vector[0], vector[1]), xytext=(0, 0), arrowprops={"arrowstyle": "->", "lw": 2})
        ax.text(vector[0], vector[1], name)
    limit = max(abs(v) for v in (*a, *b)) + 1
    ax.set_xlim(-limit, limit)
    ax.set_ylim(-limit, limit)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    return fig
