"""Checks for exercises/attention.py: self_attention."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_close, expect_working


def _inputs(rng: torch.Generator, batch: int, seq_len: int, d_model: int, dtype=torch.float32):
    """x and three [D, D] weights scaled so that the scores are O(sqrt(D)) (the scale matters)."""
    x = torch.randn(batch, seq_len, d_model, generator=rng, dtype=dtype)
    weights = [torch.randn(d_model, d_model, generator=rng, dtype=dtype) / d_model ** 0.25 for _ in range(3)]
    return (x, *weights)


@pytest.mark.exercise("self_attention")
@pytest.mark.points(3)
def test_self_attention_matches_scaled_dot_product_attention(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 2, 6, 8), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden
def test_self_attention_of_one_token_returns_its_value(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 1, 4), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden
def test_self_attention_over_a_long_sequence(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 256, 16), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden
def test_self_attention_is_permutation_equivariant(candidate, reference, rng):
    x, w_q, w_k, w_v = _inputs(rng, 2, 7, 6)
    permutation = torch.randperm(7, generator=rng)
    out = expect_working(candidate, reference, "self_attention", x, w_q, w_k, w_v,   # the identity is equivariant too
                         atol=1e-5, rtol=1e-4)
    out_of_permuted = candidate.self_attention(x[:, permutation], w_q, w_k, w_v)
    expect_close(out_of_permuted, out[:, permutation], atol=1e-5, rtol=1e-4,
                 what="self_attention(x[:, perm]) compared with self_attention(x)[:, perm]")


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden
def test_self_attention_keeps_float64_inputs_float64(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 5, 4, torch.float64), atol=1e-10, rtol=1e-10)
