"""Vectors: the dot product, in plain Python (lists of numbers)."""
from __future__ import annotations


def dot(a: list[float], b: list[float]) -> float:
    """The dot product of `a` and `b`.

    Args:
        a: a list of n numbers.
        b: a list of n numbers, as long as `a`.

    Returns:
        The sum over i of a[i] * b[i], as a float.

    Raises:
        ValueError: when `a` and `b` have different lengths.
    """
    # BEGIN SOLUTION
    if len(a) != len(b):
        raise ValueError(f"a has {len(a)} entries and b has {len(b)}")
    return float(sum(x * y for x, y in zip(a, b)))
    # END SOLUTION
