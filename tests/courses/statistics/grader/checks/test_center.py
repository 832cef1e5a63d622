"""Checks for exercises/center.py: mean and median. Every input is drawn from `rng`."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call


@pytest.mark.exercise("mean")
@pytest.mark.points(2)
def test_mean_of_each_row(candidate, reference, rng):
    x = torch.randn(4, 7, generator=rng) * 3 + 10  # [4, 7]: 4 rows of 7 measurements
    expect_call(candidate, reference, "mean", x)


@pytest.mark.exercise("mean")
@pytest.mark.hidden
def test_mean_of_single_measurements_in_float64(candidate, reference, rng):
    x = torch.randn(2, 3, 1, generator=rng, dtype=torch.float64)  # n = 1: the mean is the value
    expect_call(candidate, reference, "mean", x)


@pytest.mark.exercise("median")
def test_median_of_rows_of_odd_length(candidate, reference, rng):
    x = torch.randn(3, 5, generator=rng)
    expect_call(candidate, reference, "median", x)


@pytest.mark.exercise("median")
@pytest.mark.points(2)
def test_median_of_rows_of_even_length(candidate, reference, rng):
    x = torch.randn(3, 6, generator=rng)
    expect_call(candidate, reference, "median", x)


@pytest.mark.exercise("median")
@pytest.mark.hidden
def test_median_of_a_batch_of_pairs(candidate, reference, rng):
    x = torch.randn(2, 4, 2, generator=rng)  # n = 2: the median is the mean of both
    expect_call(candidate, reference, "median", x)
