"""Checks for exercises/rope.py: apply_rope, ntk_base."""
from __future__ import annotations

import math

import pytest
import torch

from grader.checking import expect_at_least, expect_call, expect_close, expect_raises, expect_shape, expect_working


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def _tolerance(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """[S, 1] absolute tolerance: float32 angles are off by ~|p| * 6e-8 rad, which moves an output by
    that much times the pair's length, so correct alternatives (complex numbers, pow vs exp(log),
    float32 throughout) need more room at large positions."""
    scale = float(x.abs().max()) + 1.0
    return 1e-5 * scale + 4e-7 * scale * positions.abs().to(torch.float64)[:, None]


@pytest.mark.exercise("apply_rope")
@pytest.mark.points(3)
def test_apply_rope_rotates_interleaved_pairs_at_default_positions(candidate, reference, rng):
    x = torch.randn(2, 3, _randint(rng, 6, 16), 2 * _randint(rng, 2, 6), generator=rng)
    expect_call(candidate, reference, "apply_rope", x, atol=_tolerance(x, torch.arange(x.shape[2])), rtol=0.0)


@pytest.mark.exercise("apply_rope")
@pytest.mark.points(2)
def test_apply_rope_uses_the_given_positions_with_repeats(candidate, reference, rng):
    seq_len = _randint(rng, 5, 10)
    x = torch.randn(1, 2, seq_len, 8, generator=rng)
    positions = torch.randint(0, 1000, (seq_len,), generator=rng)
    positions[1] = positions[0]                                   # a repeated position
    expect_call(candidate, reference, "apply_rope", x, positions=positions, atol=_tolerance(x, positions), rtol=0.0)


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden(en='the rotation must stay right at positions up to 4096',
                    zh='在直到 4096 的位置上旋转都必须保持正确')
def test_apply_rope_over_4096_positions(candidate, reference, rng):
    x = torch.randn(1, 2, 4096, 8, generator=rng)
    expect_call(candidate, reference, "apply_rope", x, atol=_tolerance(x, torch.arange(4096)), rtol=0.0)


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden(en='the `base` argument must replace 10000 (here at one given position)',
                    zh='参数 `base` 必须替代 10000（这里只有一个给定位置）')
def test_apply_rope_of_one_position_with_a_custom_base(candidate, reference, rng):
    x = torch.randn(1, 1, 1, 6, generator=rng)
    positions = torch.randint(1, 50, (1,), generator=rng)
    expect_call(candidate, reference, "apply_rope", x, positions=positions, base=float(_randint(rng, 100, 1000)),
                atol=_tolerance(x, positions), rtol=0.0)


# The two property checks below are passed by code that rotates by the wrong angle (sin and cos
# swapped, clockwise, another exponent): they grade what such code gets right. What every such
# attempt still gets right: pair 0 turns by exactly 1 rad per position (base^0 = 1), and a later pair
# turns slower. The identity, zeros, constants, sign flips, quarter turns, noise and any map that
# ignores the positions get that wrong.

def _pair_lengths(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(*t.shape[:-1], -1, 2).to(torch.float64).norm(dim=-1)       # [..., d/2]


def _step_cosine(candidate, dim: int, pair: int, m: int) -> float:
    """cos of the angle pair `pair` turns by from position m to m + 1: q.k for q = k = the unit
    vector on x[2 * pair] at positions m and m + 1 (cos(1) for pair 0, closer to 1 for later pairs)."""
    unit = torch.zeros(1, 1, 2, dim)
    unit[..., 2 * pair] = 1.0
    out = expect_shape(candidate.apply_rope(unit, positions=torch.tensor([m, m + 1])), (1, 1, 2, dim),
                       what=f"apply_rope(x) for one unit vector at positions {m} and {m + 1}")
    out = out.to(torch.float64)
    return float((out[0, 0, 0] * out[0, 0, 1]).sum())


def _pair_0_turns_one_radian_per_position(candidate, dim: int, m: int) -> float:
    step = _step_cosine(candidate, dim, 0, m)
    expect_close(step, math.cos(1.0), atol=1e-3, rtol=0.0,
                 what=f"cos of the angle pair 0 turns by from position {m} to {m + 1} (base^0 = 1: 1 rad)")
    return step


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden(en='a rotation keeps the length of every pair (x[2i], x[2i+1])',
                    zh='旋转必须保持每一对 (x[2i], x[2i+1]) 的长度')
def test_apply_rope_keeps_the_length_of_every_pair(candidate, reference, rng):
    x = torch.randn(2, 2, 12, 8, generator=rng)
    positions = torch.randint(0, 500, (12,), generator=rng)
    out = expect_shape(candidate.apply_rope(x, positions=positions), tuple(x.shape), what="apply_rope(x)")
    expect_close(_pair_lengths(out), _pair_lengths(x), atol=1e-4, rtol=1e-5,
                 what="the length of each rotated pair (x[2i], x[2i+1])")
    _pair_0_turns_one_radian_per_position(candidate, 8, _randint(rng, 0, 200))   # the identity keeps lengths too


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden(en='q.k after the rotation must depend only on the offset between the two positions',
                    zh='旋转之后的 q.k 必须只取决于两个位置之间的偏移')
def test_apply_rope_dot_product_depends_only_on_the_offset(candidate, reference, rng):
    dim = 8
    q, k = torch.randn(dim, generator=rng), torch.randn(dim, generator=rng)
    m, n, shift = (_randint(rng, 0, 200) for _ in range(3))

    def dots(q_at: list[int], k_at: list[int]) -> torch.Tensor:
        """q.k for q at q_at[j] and k at k_at[j], j = 0, 1: [2]."""
        rotated = [expect_shape(candidate.apply_rope(v.expand(1, 1, 2, dim).clone(), positions=torch.tensor(at)),
                                (1, 1, 2, dim), what="apply_rope(x)") for v, at in ((q, q_at), (k, k_at))]
        return (rotated[0].to(torch.float64) * rotated[1].to(torch.float64)).sum(-1).reshape(-1)

    shifted = dots([m, m + shift], [n, n + shift])
    expect_close(float(shifted[1]), float(shifted[0]), atol=1e-3, rtol=1e-4,
                 what=f"q.k at positions ({m + shift}, {n + shift}) compared with ({m}, {n})")
    first = _pair_0_turns_one_radian_per_position(candidate, dim, m)       # the identity keeps q.k too
    last = _step_cosine(candidate, dim, dim // 2 - 1, m)
    expect_at_least(last, first + 0.1, what=f"cos of the angle the last pair turns by from position {m} to {m + 1}",
                    why={"en": "each later pair turns slower than pair 0 (its angle is p * base^(-2i/d)).",
                         "zh": "后面的每一对都比第 0 对转得慢（其角度为 p * base^(-2i/d)）。"})


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden(en='float64 inputs must give a float64 result (the dtype is kept)',
                    zh='float64 的输入必须得到 float64 的结果（保持 dtype）')
def test_apply_rope_keeps_float64_inputs_float64(candidate, reference, rng):
    x = torch.randn(1, 2, 5, 4, generator=rng, dtype=torch.float64)
    expect_call(candidate, reference, "apply_rope", x, atol=_tolerance(x, torch.arange(5)), rtol=0.0)


# ---- ntk_base ----------------------------------------------------------------------------------

@pytest.mark.exercise("ntk_base")
@pytest.mark.points(2)
def test_ntk_base_raises_the_scale_to_d_over_d_minus_2(candidate, reference, rng):
    base = (10000.0, 500000.0)[_randint(rng, 0, 1)]
    scale = float(_randint(rng, 2, 32)) + _randint(rng, 0, 3) / 4
    expect_call(candidate, reference, "ntk_base", base, scale, 2 * _randint(rng, 8, 64), atol=0.0, rtol=1e-9)


@pytest.mark.exercise("ntk_base")
def test_ntk_base_of_scale_one_is_the_base(candidate, reference, rng):
    expect_working(candidate, reference, "ntk_base", 10000.0, 4.0, 64, atol=0.0, rtol=1e-9)   # `return base` fits scale 1
    expect_call(candidate, reference, "ntk_base", float(_randint(rng, 100, 100000)), 1.0, 64, atol=0.0, rtol=1e-12)


@pytest.mark.exercise("ntk_base")
@pytest.mark.hidden(en='the smallest head allowed (head_dim = 4) must give base * scale ** 2',
                    zh='允许的最小头（head_dim = 4）必须得到 base * scale ** 2')
def test_ntk_base_for_the_smallest_head(candidate, reference, rng):
    expect_call(candidate, reference, "ntk_base", 10000.0, float(_randint(rng, 2, 8)), 4, atol=0.0, rtol=1e-9)


@pytest.mark.exercise("ntk_base")
@pytest.mark.hidden(en='scale < 1, an odd head_dim and head_dim < 4 must each raise ValueError',
                    zh='scale < 1、奇数的 head_dim 和 head_dim < 4 都必须各自抛出 ValueError')
def test_ntk_base_rejects_a_shorter_context_and_bad_head_sizes(candidate, reference, rng):
    expect_working(candidate, reference, "ntk_base", 10000.0, 4.0, 64, atol=0.0, rtol=1e-9)   # not always raising
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 0.5, 64)
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 4.0, 2 * _randint(rng, 4, 32) + 1)
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 4.0, 2)
