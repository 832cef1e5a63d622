"""Checks for exercises/rope.py: apply_rope, ntk_base."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_close, expect_raises, expect_working


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
@pytest.mark.hidden
def test_apply_rope_over_4096_positions(candidate, reference, rng):
    x = torch.randn(1, 2, 4096, 8, generator=rng)
    expect_call(candidate, reference, "apply_rope", x, atol=_tolerance(x, torch.arange(4096)), rtol=0.0)


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden
def test_apply_rope_of_one_position_with_a_custom_base(candidate, reference, rng):
    x = torch.randn(1, 1, 1, 6, generator=rng)
    positions = torch.randint(1, 50, (1,), generator=rng)
    expect_call(candidate, reference, "apply_rope", x, positions=positions, base=float(_randint(rng, 100, 1000)),
                atol=_tolerance(x, positions), rtol=0.0)


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden
def test_apply_rope_keeps_the_length_of_every_pair(candidate, reference, rng):
    x = torch.randn(2, 2, 12, 8, generator=rng)
    positions = torch.randint(0, 500, (12,), generator=rng)
    out = expect_working(candidate, reference, "apply_rope", x, positions=positions,
                         atol=_tolerance(x, positions), rtol=0.0)     # the identity keeps lengths too
    lengths = lambda t: t.reshape(*t.shape[:-1], -1, 2).to(torch.float64).norm(dim=-1)  # noqa: E731
    expect_close(lengths(out) if out.shape == x.shape else out, lengths(x), atol=1e-4, rtol=1e-5,
                 what="the length of each rotated pair (x[2i], x[2i+1])")


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden
def test_apply_rope_dot_product_depends_only_on_the_offset(candidate, reference, rng):
    dim = 8
    q, k = torch.randn(dim, generator=rng), torch.randn(dim, generator=rng)
    m, n, shift = (_randint(rng, 0, 200) for _ in range(3))
    pair = torch.stack([q, k]).reshape(1, 1, 2, dim)           # the identity and zeros keep q.k too
    expect_working(candidate, reference, "apply_rope", pair, positions=torch.tensor([m, n]),
                   atol=_tolerance(pair, torch.tensor([m, n])), rtol=0.0)
    rotated_q = candidate.apply_rope(q.expand(1, 1, 2, dim).clone(), positions=torch.tensor([m, m + shift]))
    rotated_k = candidate.apply_rope(k.expand(1, 1, 2, dim).clone(), positions=torch.tensor([n, n + shift]))
    dots = (rotated_q.to(torch.float64) * rotated_k.to(torch.float64)).sum(-1).reshape(-1)
    expect_close(float(dots[1]), float(dots[0]), atol=1e-3, rtol=1e-4,
                 what=f"q.k at positions ({m + shift}, {n + shift}) compared with ({m}, {n})")


@pytest.mark.exercise("apply_rope")
@pytest.mark.hidden
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
    expect_call(candidate, reference, "ntk_base", float(_randint(rng, 100, 100000)), 1.0, 64, atol=0.0, rtol=1e-12)


@pytest.mark.exercise("ntk_base")
@pytest.mark.hidden
def test_ntk_base_for_the_smallest_head(candidate, reference, rng):
    expect_call(candidate, reference, "ntk_base", 10000.0, float(_randint(rng, 2, 8)), 4, atol=0.0, rtol=1e-9)


@pytest.mark.exercise("ntk_base")
@pytest.mark.hidden
def test_ntk_base_rejects_a_shorter_context_and_bad_head_sizes(candidate, reference, rng):
    expect_working(candidate, reference, "ntk_base", 10000.0, 4.0, 64, atol=0.0, rtol=1e-9)   # not always raising
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 0.5, 64)
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 4.0, 2 * _randint(rng, 4, 32) + 1)
    expect_raises(candidate, "ntk_base", ValueError, 10000.0, 4.0, 2)
