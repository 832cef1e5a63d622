"""Checks for exercises/positions.py: sinusoidal_encoding, LearnedPositionalEmbedding, relative_positions."""
from __future__ import annotations

import re

import pytest
import torch

from grader.checking import CandidateError, CheckFailure, current_language, expect_behaviour, expect_call, expect_raises


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
@pytest.mark.hidden
def test_sinusoidal_encoding_over_4096_positions(candidate, reference, rng):
    d_model = 2 * _randint(rng, 16, 32)
    expect_call(candidate, reference, "sinusoidal_encoding", 4096, d_model, atol=_angle_tolerance(4096), rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden
def test_sinusoidal_encoding_with_a_custom_base(candidate, reference, rng):
    base = float(_randint(rng, 20, 500))
    expect_call(candidate, reference, "sinusoidal_encoding", 16, 8, base=base, atol=_angle_tolerance(16), rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden
def test_sinusoidal_encoding_of_length_one_is_zeros_and_ones(candidate, reference, rng):
    expect_call(candidate, reference, "sinusoidal_encoding", 1, 2 * _randint(rng, 1, 8), atol=1e-6, rtol=0.0)


@pytest.mark.exercise("sinusoidal_encoding")
@pytest.mark.hidden
def test_sinusoidal_encoding_odd_d_model_raises_valueerror(candidate, rng):
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
@pytest.mark.hidden
def test_learned_positions_at_exactly_max_seq_len(candidate, reference, rng):
    max_seq_len = _randint(rng, 3, 9)
    d_model, table, x = _learned_inputs(rng, 2, max_seq_len, max_seq_len)
    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", _add_positions(max_seq_len, d_model, table, x),
                     what="LearnedPositionalEmbedding(...)(x) with S = max_seq_len")


@pytest.mark.exercise("LearnedPositionalEmbedding")
@pytest.mark.hidden
def test_learned_positions_for_a_batch_of_one(candidate, reference, rng):
    max_seq_len = _randint(rng, 6, 12)
    d_model, table, x = _learned_inputs(rng, 1, 5, max_seq_len)
    expect_behaviour(candidate, reference, "LearnedPositionalEmbedding", _add_positions(max_seq_len, d_model, table, x),
                     what="LearnedPositionalEmbedding(...)(x) with a batch of one")


@pytest.mark.exercise("LearnedPositionalEmbedding")
def test_learned_positions_longer_than_max_raise_valueerror_naming_both_lengths(candidate, rng):
    max_seq_len = _randint(rng, 3, 9)
    seq_len = max_seq_len + _randint(rng, 1, 5)
    module = candidate.LearnedPositionalEmbedding(max_seq_len, 4)
    zh = current_language() == "zh"
    wanted = (f"LearnedPositionalEmbedding({max_seq_len}, 4) 处理长度为 {seq_len} 的序列时应抛出 ValueError，"
              f"且错误信息中写明 {seq_len} 和 {max_seq_len}" if zh else
              f"LearnedPositionalEmbedding({max_seq_len}, 4) should raise ValueError naming both {seq_len} "
              f"and {max_seq_len} for a sequence of length {seq_len}")
    try:
        module(torch.zeros(2, seq_len, 4))
    except Exception as error:  # CandidateError from the sandbox; the exception itself from trusted code
        message = str(error) if isinstance(error, CandidateError) else f"{type(error).__name__}: {error}"
        raised = getattr(error, "exception_type", None) or ("ValueError" if "ValueError" in message else None)
        numbers = set(re.findall(r"\d+", message))
        if raised == "ValueError" and {str(seq_len), str(max_seq_len)} <= numbers:
            return
        raise CheckFailure(f"{wanted}{'；但是：' if zh else '; but: '}{message}") from None
    raise CheckFailure(f"{wanted}{'；但它正常返回了。' if zh else '; it returned normally.'}")


# ---- relative_positions ------------------------------------------------------------------------

@pytest.mark.exercise("relative_positions")
@pytest.mark.points(2)
def test_relative_positions_give_key_minus_query(candidate, reference, rng):
    expect_call(candidate, reference, "relative_positions", _randint(rng, 3, 12))


@pytest.mark.exercise("relative_positions")
@pytest.mark.hidden
def test_relative_positions_of_length_one(candidate, reference):
    expect_call(candidate, reference, "relative_positions", 1)


@pytest.mark.exercise("relative_positions")
@pytest.mark.hidden
def test_relative_positions_over_a_long_sequence(candidate, reference, rng):
    expect_call(candidate, reference, "relative_positions", _randint(rng, 300, 512))
