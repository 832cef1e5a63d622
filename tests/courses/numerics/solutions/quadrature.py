"""Quadrature: the trapezoid rule for a function given as Python code."""
from __future__ import annotations

from typing import Callable


def trapezoid(f: Callable[[float], float], a: float, b: float, n: int) -> float:
    """The trapezoid rule for the integral of `f` over [a, b] with `n` trapezoids.

    Args:
        f: a function of one float returning a float.
        a: the lower limit.
        b: the upper limit.
        n: the number of trapezoids, at least 1.

    Returns:
        h * (f(x_0) / 2 + f(x_1) + ... + f(x_{n-1}) + f(x_n) / 2) with h = (b - a) / n, x_i = a + i h.
    """
    # BEGIN SOLUTION
    h = (b - a) / n
    inner = sum(f(a + i * h) for i in range(1, n))
    return h * (0.5 * f(a) + inner + 0.5 * f(b))
    # END SOLUTION
