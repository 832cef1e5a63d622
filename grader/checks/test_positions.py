"""Checks for exercises/positions.py: sinusoidal_encoding, LearnedPositionalEmbedding, relative_positions."""
from __future__ import annotations

import math
import re

import pytest
import torch

from grader.checking import (
    CandidateError,
    expect_at_least,
    expect_behaviour,
    expect_call,
    expect_close,
    expect_raises,
    expect_shape,
    expect_working,
)


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def _angle_tolerance(seq_len: int) -> torch.Tensor:
    """[S, 1] absolute tolerance for float32 sinusoids: float32 angles are off by ~p * 6e-8 rad,
    so correct alternatives (pow vs exp(log), float32 throughout) differ more at larger p."""
    return 1e-5 + 2.5e-7 * torch.arange(seq_len, dtype=torch.float64)[:, None]


# ---- sinusoidal_encoding -----------------------------------------------------------------------

@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.points(3)
def test_sinusoidal_encoding_matches_the_paper_formula(candidate, reference, rng):
    seq_len, d_model = _randint(rng, 8, 40), 2 * _randint(rng, 3, 10)
    expect_call(candidate, reference, "sinusoidal_encoding", seq_len, d_model,
                atol=_angle_tolerance(seq_len), rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden(en='the encoding must stay right at positions up to 4096',
                    zh='在直到 4096 的位置上编码都必须保持正确')
def test_sinusoidal_encoding_over_4096_positions(candidate, reference, rng):
    d_model = 2 * _randint(rng, 16, 32)
    expect_call(candidate, reference, "sinusoidal_encoding", 4096, d_model, atol=_angle_tolerance(4096), rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden(en='the `base` argument must replace 10000',
                    zh='参数 `base` 必须替代 10000')
def test_sinusoidal_encoding_with_a_custom_base(candidate, reference, rng):
    base = float(_randint(rng, 20, 500))
    expect_call(candidate, reference, "sinusoidal_encoding", 16, 8, base=base, atol=_angle_tolerance(16), rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden(en='position 0 must be sin(0) = 0 and cos(0) = 1 alternately',
                    zh='位置 0 必须交替为 sin(0) = 0 和 cos(0) = 1')
def test_sinusoidal_encoding_of_length_one_is_zeros_and_ones(candidate, reference, rng):
    expect_working(candidate, reference, "sinusoidal_encoding", 10, 2 * _randint(rng, 3, 8),
                   atol=_angle_tolerance(10), rtol=0.0)        # not a constant [0, 1, 0, 1, ...] pattern
    expect_call(candidate, reference, "sinusoidal_encoding", 1, 2 * _randint(rng, 1, 8), atol=1e-6, rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden(en='each (sin, cos) pair must lie on the unit circle and turn as the position grows',
                    zh='每一对 (sin, cos) 都必须在单位圆上，并随位置增大而转动')
def test_sinusoidal_encoding_pairs_lie_on_the_unit_circle_and_turn(candidate, reference, rng):
    # Passed by code that pairs a sine with a cosine of one angle, even a wrong angle (swapped, another
    # exponent): every pair lies on the unit circle, pair 0 turns by exactly 1 rad per position (its
    # wavelength is base^0 = 1) and the last pair turns slower. Constants, sign flips, noise on the
    # circle and patterns that do not turn steadily fail.
    seq_len, d_model = _randint(rng, 8, 40), 2 * _randint(rng, 3, 10)
    pe = expect_shape(candidate.sinusoidal_encoding(seq_len, d_model), (seq_len, d_model),
                      what=f"sinusoidal_encoding({seq_len}, {d_model})")
    pairs = pe.reshape(seq_len, -1, 2).to(torch.float64)                                  # [S, D/2, 2]
    expect_close(pairs.norm(dim=-1), torch.ones(seq_len, d_model // 2, dtype=torch.float64), atol=1e-5, rtol=0.0,
                 what="the length of each pair (PE[p, 2i], PE[p, 2i+1]), sin^2 + cos^2")
    steps = (pairs[1:] * pairs[:-1]).sum(-1)              # [S-1, D/2]: cos of each pair's turn from p to p + 1
    expect_close(steps[:, 0], torch.full((seq_len - 1,), math.cos(1.0), dtype=torch.float64), atol=1e-4, rtol=0.0,
                 what="cos of the angle pair 0 turns by from p to p + 1 (wavelength base^0 = 1: 1 rad)")
    expect_at_least(float(steps[:, -1].min()), math.cos(1.0) + 0.1,
                    what="cos of the angle the last pair turns by from p to p + 1",
                    why={"en": "each later pair turns slower than pair 0 (its angle is p / base^(2i/D)).",
                         "zh": "后面的每一对都比第 0 对转得慢（其角度为 p / base^(2i/D)）。"})


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden(en='an odd d_model must raise ValueError',
                    zh='奇数的 d_model 必须抛出 ValueError')
def test_sinusoidal_encoding_odd_d_model_raises_valueerror(candidate, reference, rng):
    expect_working(candidate, reference, "sinusoidal_encoding", 10, 2 * _randint(rng, 1, 8),
                   atol=_angle_tolerance(10), rtol=0.0)                      # not a function that always raises
    expect_raises(candidate, "sinusoidal_encoding", ValueError, 10, 2 * _randint(rng, 1, 8) + 1)


# ---- LearnedPositionalEmbedding ----------------------------------------------------------------

def _learned_inputs(rng: torch.Generator, batch: int, seq_len: int, max_seq_len: int):
    d_model = _randint(rng, 3, 6)
    table = torch.randn(max_seq_len, d_model, generator=rng)
    x = torch.randn(batch, seq_len, d_model, generator=rng)
    return d_model, table, x


def _add_positions(max_seq_len: int, d_model: int, table: torch.Tensor, x: torch.Tensor):
    def scenario(make):
        module = make(max_seq_len, d_model)
        module.set("position_embedding.weight", table)
        return module(x)
    return scenario


@pytest.mark.exercise("LearnedPositionalEmbedding")
@pytest.mark.points(2)
def test_learned_positions_add_table_rows_0_to_s_minus_1(candidate, reference, rng):
    max_seq_len = _randint(rng, 10, 16)
    d_model, table, x = _learned_inputs(rng, 3, _randint(rng, 4, 8), max_seq_len)
    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", _add_positions(max_seq_len, d_model, table, x),
                     what="LearnedPositionalEmbedding(...)(x) after setting position_embedding.weight")


@pytest.mark.exercise("LearnedPositionalEmbedding")
@pytest.mark.hidden(en='a sequence of exactly max_seq_len positions must be accepted and use every row',
                    zh='恰好 max_seq_len 个位置的序列必须被接受，并用到每一行')
def test_learned_positions_at_exactly_max_seq_len(candidate, reference, rng):
    max_seq_len = _randint(rng, 3, 9)
    d_model, table, x = _learned_inputs(rng, 2, max_seq_len, max_seq_len)
    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", _add_positions(max_seq_len, d_model, table, x),
                     what="LearnedPositionalEmbedding(...)(x) with S = max_seq_len")


@pytest.mark.exercise("LearnedPositionalEmbedding")
@pytest.mark.hidden(en='a batch of one must get rows 0..S-1 added, like any batch',
                    zh='只有一个样本的批次也必须像其他批次一样加上第 0..S-1 行')
def test_learned_positions_for_a_batch_of_one(candidate, reference, rng):
    max_seq_len = _randint(rng, 6, 12)
    d_model, table, x = _learned_inputs(rng, 1, 5, max_seq_len)
    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", _add_positions(max_seq_len, d_model, table, x),
                     what="LearnedPositionalEmbedding(...)(x) with a batch of one")


def _exception_name(error: Exception) -> str:
    """The student's exception type: named by the sandbox's message, or the exception itself (trusted code)."""
    if not isinstance(error, CandidateError):
        return type(error).__name__
    found = getattr(error, "exception_type", None) or re.search(r"\b(\w+(?:Error|Exception))\b", str(error))
    return found if isinstance(found, str) else (found.group(1) if found else "no exception type")


@pytest.mark.exercise("LearnedPositionalEmbedding")
def test_learned_positions_longer_than_max_raise_valueerror_naming_both_lengths(candidate, reference, rng):
    max_seq_len = _randint(rng, 3, 9)
    seq_len = max_seq_len + _randint(rng, 1, 5)
    table = torch.randn(max_seq_len, 4, generator=rng)
    x_fits = torch.randn(2, max_seq_len - 1, 4, generator=rng)

    def scenario(make):
        module = make(max_seq_len, 4)
        module.set("position_embedding.weight", table)
        fits = module(x_fits)          # an ordinary input first: a forward that always raises earns nothing
        try:
            module(torch.zeros(2, seq_len, 4))
        except Exception as error:  # CandidateError from the sandbox; the exception itself from trusted code
            return {"output for S < max_seq_len": fits, "exception": _exception_name(error),
                    "message names S and max_seq_len": _names_both(str(error), seq_len, max_seq_len)}
        return {"output for S < max_seq_len": fits, "exception": "none", "message names S and max_seq_len": False}

    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", scenario,
                     what=f"LearnedPositionalEmbedding({max_seq_len}, 4)(x with S={seq_len})")


def _names_both(message: str, seq_len: int, max_seq_len: int) -> bool:
    """Both numbers appear as whole numbers, in a message that is not a list of numbers (a few
    more, such as the input's shape, are fine)."""
    numbers = re.findall(r"(?<![\d.])\d+(?![\d.])", message)
    return {str(seq_len), str(max_seq_len)} <= set(numbers) and len(set(numbers)) <= 6


# ---- relative_positions ------------------------------------------------------------------------

@pytest.mark.exercise("relative_positions")
@pytest.mark.points(2)
def test_relative_positions_give_key_minus_query(candidate, reference, rng):
    expect_call(candidate, reference, "relative_positions", _randint(rng, 3, 12))


@pytest.mark.exercise("relative_positions")
@pytest.mark.hidden(en='a sequence of one position must give [[0]]',
                    zh='只有一个位置的序列必须得到 [[0]]')
def test_relative_positions_of_length_one(candidate, reference, rng):
    expect_working(candidate, reference, "relative_positions", _randint(rng, 3, 12))   # not zeros of any size
    expect_call(candidate, reference, "relative_positions", 1)


@pytest.mark.exercise("relative_positions")
@pytest.mark.hidden(en='over a long sequence [i, j] must still be j - i, as a LongTensor',
                    zh='在很长的序列上 [i, j] 仍必须是 j - i，类型为 LongTensor')
def test_relative_positions_over_a_long_sequence(candidate, reference, rng):
    expect_call(candidate, reference, "relative_positions", _randint(rng, 300, 512))
