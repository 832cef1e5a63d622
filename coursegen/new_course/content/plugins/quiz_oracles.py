"""Independent oracles: the closed form of each answer function, in plain Python."""
from __future__ import annotations

from coursegen.plugin import oracle


@oracle("dot_value")
def dot_value(a1: int, a2: int, b1: int, b2: int) -> float:
    return a1 * b1 + a2 * b2


@oracle("squared_length")
def squared_length(a1: int, a2: int, a3: int) -> float:
    return a1 * a1 + a2 * a2 + a3 * a3


@oracle("scaled_dot")
def scaled_dot(k: int, a1: int, a2: int, b1: int, b2: int) -> float:
    return k * (a1 * b1 + a2 * b2)
