"""Checks for exercises/spread.py: variance. Every input is drawn from `rng`."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_raises


@pytest.mark.exercise("variance")
@pytest.mark.points(2)
def test_population_variance_of_each_row(candidate, reference, rng):
    x = torch.randn(4, 8, generator=rng) * 2 + 5
    expect_call(candidate, reference, "variance", x)


@pytest.mark.exercise("variance")
@pytest.mark.points(2)
def test_sample_variance_divides_by_n_minus_one(candidate, reference, rng):
    x = torch.randn(4, 8, generator=rng) * 2 + 5
    expect_call(candidate, reference, "variance", x, ddof=1)


@pytest.mark.exercise("variance")
@pytest.mark.hidden
def test_variance_of_constant_rows_is_zero(candidate, reference, rng):
    x = torch.randn(3, 1, generator=rng).expand(3, 6).contiguous()  # each row one repeated value
    expect_call(candidate, reference, "variance", x, ddof=1)


@pytest.mark.exercise("variance")
@pytest.mark.hidden
def test_variance_of_too_few_values_raises_value_error(candidate, rng):
    x = torch.randn(5, 1, generator=rng)  # n = 1, ddof = 1: nothing to divide by
    expect_raises(candidate, "variance", ValueError, x, ddof=1)
