"""Checks for exercises/vectors.py: dot."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call


@pytest.mark.exercise("dot")
@pytest.mark.points(2)
def test_dot_of_two_vectors(candidate, reference, rng):
    a, b = torch.randn(6, generator=rng), torch.randn(6, generator=rng)
    expect_call(candidate, reference, "dot", a, b)


@pytest.mark.exercise("dot")
@pytest.mark.hidden
def test_dot_over_the_last_dimension_of_a_batch(candidate, reference, rng):
    a, b = torch.randn(3, 4, 5, generator=rng), torch.randn(3, 4, 5, generator=rng)
    expect_call(candidate, reference, "dot", a, b)
