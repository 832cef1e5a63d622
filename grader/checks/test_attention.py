"""Checks for exercises/attention.py: self_attention, causal_mask."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_close, expect_raises, expect_working


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
@pytest.mark.hidden(en="with a single token, attention has one key: the output must be that token's value x @ w_v",
                    zh='只有一个 token 时注意力只有一个 key：输出必须是该 token 的 value，即 x @ w_v')
def test_self_attention_of_one_token_returns_its_value(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 1, 4), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden(en='over a long sequence the result must still be softmax(q k^T / sqrt(D)) v over the keys',
                    zh='在很长的序列上，结果仍必须是沿 key 做的 softmax(q k^T / sqrt(D)) v')
def test_self_attention_over_a_long_sequence(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 256, 16), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden(en='without positions or a mask, permuting the tokens must permute the outputs the same way',
                    zh='没有位置信息和掩码时，打乱 token 的顺序必须以同样的方式打乱输出')
def test_self_attention_is_permutation_equivariant(candidate, reference, rng):
    x, w_q, w_k, w_v = _inputs(rng, 2, 7, 6)
    permutation = torch.randperm(7, generator=rng)
    out = expect_working(candidate, reference, "self_attention", x, w_q, w_k, w_v,   # the identity is equivariant too
                         atol=1e-5, rtol=1e-4)
    out_of_permuted = candidate.self_attention(x[:, permutation], w_q, w_k, w_v)
    expect_close(out_of_permuted, out[:, permutation], atol=1e-5, rtol=1e-4,
                 what="self_attention(x[:, perm]) compared with self_attention(x)[:, perm]")


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden(en="odd sizes the contract allows (S != D, an odd D, a batch of 3) must work like any other",
                    zh="约定允许的奇特尺寸（S != D、奇数的 D、批大小为 3）也必须和其他尺寸一样正确")
def test_self_attention_with_odd_sizes(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 3, 5, 7), atol=1e-5, rtol=1e-4)


@pytest.mark.exercise("self_attention")
@pytest.mark.hidden(en='float64 inputs must give a float64 result (the dtype is kept)',
                    zh='float64 的输入必须得到 float64 的结果（保持 dtype）')
def test_self_attention_keeps_float64_inputs_float64(candidate, reference, rng):
    expect_call(candidate, reference, "self_attention", *_inputs(rng, 1, 5, 4, torch.float64), atol=1e-10, rtol=1e-10)


# ---- causal_mask -------------------------------------------------------------------------------

def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


@pytest.mark.exercise("causal_mask")
@pytest.mark.points(2)
def test_causal_mask_is_true_where_the_key_is_not_after_the_query(candidate, reference, rng):
    expect_call(candidate, reference, "causal_mask", _randint(rng, 3, 12))


@pytest.mark.exercise("causal_mask")
def test_causal_mask_of_one_and_zero_positions(candidate, reference, rng):
    expect_working(candidate, reference, "causal_mask", _randint(rng, 3, 8))   # an all-True constant fits 0 and 1 too
    expect_call(candidate, reference, "causal_mask", 1)
    expect_call(candidate, reference, "causal_mask", 0)


@pytest.mark.exercise("causal_mask")
@pytest.mark.hidden(en='for hundreds of positions the mask must still be True exactly where j <= i',
                    zh='在数百个位置上，掩码仍必须恰好在 j <= i 处为 True')
def test_causal_mask_over_many_positions(candidate, reference, rng):
    expect_call(candidate, reference, "causal_mask", _randint(rng, 200, 400))


@pytest.mark.exercise("causal_mask")
@pytest.mark.hidden(en='a negative seq_len must raise ValueError',
                    zh='负的 seq_len 必须抛出 ValueError')
def test_causal_mask_of_a_negative_length_raises_valueerror(candidate, reference, rng):
    expect_working(candidate, reference, "causal_mask", _randint(rng, 2, 6))   # not a function that always raises
    expect_raises(candidate, "causal_mask", ValueError, -_randint(rng, 1, 5))
