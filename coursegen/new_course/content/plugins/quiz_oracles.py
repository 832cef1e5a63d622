"""Independent oracles: the closed form of each answer function, in plain Python."""
from __future__ import annotations

from coursegen.plugin import oracle


@oracle("dot_value")
def dot_value(a1: int, a2: int, b1: int, b2: int) -> float:
    return a1 * b1 + a2 * b2

