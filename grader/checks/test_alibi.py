"""Checks for exercises/alibi.py: alibi_slopes and alibi_bias."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_working


def _non_power_of_two(rng: torch.Generator) -> int:
    """A head count in 3..31 that is not a power of two."""
    choices = [h for h in range(3, 32) if h & (h - 1)]
    return choices[int(torch.randint(0, len(choices), (1,), generator=rng))]


@pytest.mark.exercise("alibi_slopes")
def test_alibi_slopes_for_a_power_of_two_head_count(candidate, reference, rng):
    n_heads = 2 ** int(torch.randint(1, 5, (1,), generator=rng))
    expect_call(candidate, reference, "alibi_slopes", n_heads, atol=1e-9, rtol=1e-5)


@pytest.mark.exercise("alibi_slopes")
@pytest.mark.points(2)
def test_alibi_slopes_for_6_12_24_heads_follow_the_paper(candidate, reference, rng):
    for n_heads in (6, 12, 24, _non_power_of_two(rng)):
        expect_call(candidate, reference, "alibi_slopes", n_heads, atol=1e-9, rtol=1e-5)


@pytest.mark.exercise("alibi_slopes")
@pytest.mark.hidden(en="the slopes must follow the paper's rule for every head count from 1 to 32, powers of two or not",
                    zh='从 1 到 32 的每个头数（无论是否为 2 的幂），斜率都必须遵循论文的规则')
def test_alibi_slopes_for_every_head_count_from_1_to_32(candidate, reference):
    for n_heads in range(1, 33):
        expect_call(candidate, reference, "alibi_slopes", n_heads, atol=1e-9, rtol=1e-5)


@pytest.mark.exercise("alibi_bias")
@pytest.mark.points(2)
def test_alibi_bias_is_minus_slope_times_distance(candidate, reference, rng):
    n_heads, seq_len = 4, int(torch.randint(3, 9, (1,), generator=rng))
    expect_call(candidate, reference, "alibi_bias", n_heads, seq_len, atol=1e-7, rtol=1e-5)


@pytest.mark.exercise("alibi_bias")
def test_alibi_bias_for_non_power_of_two_heads(candidate, reference, rng):
    for n_heads in (6, _non_power_of_two(rng)):
        expect_call(candidate, reference, "alibi_bias", n_heads, 5, atol=1e-7, rtol=1e-5)


@pytest.mark.exercise("alibi_bias")
@pytest.mark.hidden(en='a sequence of one position has distance 0: its bias must be zero for every head',
                    zh='只有一个位置的序列距离为 0：每个头的偏置都必须为零')
def test_alibi_bias_of_length_one_is_zero(candidate, reference, rng):
    expect_working(candidate, reference, "alibi_bias", 4, 5, atol=1e-7, rtol=1e-5)   # not zeros of any size
    expect_call(candidate, reference, "alibi_bias", _non_power_of_two(rng), 1, atol=0.0, rtol=0.0)


@pytest.mark.exercise("alibi_bias")
@pytest.mark.hidden(en='with 12 heads and a long sequence, bias[h, i, j] must stay -slope_h * |i - j| everywhere',
                    zh='12 个头、序列很长时，bias[h, i, j] 在每处都必须是 -slope_h * |i - j|')
def test_alibi_bias_over_a_long_sequence_with_12_heads(candidate, reference):
    expect_call(candidate, reference, "alibi_bias", 12, 256, atol=1e-6, rtol=1e-5)
