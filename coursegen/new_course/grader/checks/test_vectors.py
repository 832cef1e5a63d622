"""Checks for exercises/vectors.py: dot."""
from __future__ import annotations

import pytest

from grader.checking import expect_call, expect_raises, expect_working


def vector(py_rng, n):
    """n numbers drawn from the check's seeded random.Random (the fixture py_rng)."""
    return [round(py_rng.uniform(-5, 5), 3) for _ in range(n)]


@pytest.mark.exercise("dot")
@pytest.mark.points(2)
def test_dot_of_two_vectors(candidate, reference, py_rng):
    expect_call(candidate, reference, "dot", vector(py_rng, 6), vector(py_rng, 6))


@pytest.mark.exercise("dot")
@pytest.mark.hidden
def test_dot_of_vectors_of_different_lengths_raises_value_error(candidate, reference, py_rng):
    expect_working(candidate, reference, "dot", vector(py_rng, 4), vector(py_rng, 4))
    expect_raises(candidate, "dot", ValueError, vector(py_rng, 3), vector(py_rng, 4))
