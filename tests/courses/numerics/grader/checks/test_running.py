"""Checks for exercises/running.py: cumulative_trapezoid, numpy arrays in and out (np_rng)."""
from __future__ import annotations

import pytest

from grader.checking import expect_call


@pytest.mark.exercise("cumulative_trapezoid")
@pytest.mark.points(2)
def test_running_integral_of_samples(candidate, reference, np_rng):
    y = np_rng.normal(size=9)
    expect_call(candidate, reference, "cumulative_trapezoid", y, 0.25)


@pytest.mark.exercise("cumulative_trapezoid")
@pytest.mark.hidden
def test_running_integral_of_two_samples(candidate, reference, np_rng):
    expect_call(candidate, reference, "cumulative_trapezoid", np_rng.normal(size=2), 1.5)
