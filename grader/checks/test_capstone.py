"""Checks for exercises/capstone.py: TinyLM, checked by behaviour.

A model's weights are random, so its logits cannot be compared with the reference's. The
checks compare what must hold for ANY weights: shapes, one shared weight, causality, and
whether the order of the earlier tokens reaches the last position. The model is first
converted with model.double() so that "unchanged" means unchanged up to float64 rounding
and "changed" cannot be float32 noise.
"""
from __future__ import annotations

import re

import pytest
import torch

from grader.checking import CandidateError, expect_behaviour

METHODS = ("none", "sinusoidal", "learned", "rope", "alibi")
D_MODEL, N_HEADS = 16, 2


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def _sizes(rng: torch.Generator) -> tuple[int, int, int]:
    """vocab_size (above max_seq_len, so S distinct tokens exist; never D), max_seq_len and S <= max_seq_len."""
    vocab_size = (13, 14, 15, 17, 18, 19)[_randint(rng, 0, 5)]
    max_seq_len = _randint(rng, 9, 12)
    return vocab_size, max_seq_len, max_seq_len - _randint(rng, 0, 2)


def _distinct_ids(rng: torch.Generator, vocab_size: int, seq_len: int) -> torch.Tensor:
    """[1, S] ids with no repeated token, so that permuting them really changes the sequence."""
    return torch.randperm(vocab_size, generator=rng)[:seq_len][None]


def _float64_model(make, vocab_size: int, max_seq_len: int, position: str):
    model = make(vocab_size, D_MODEL, N_HEADS, max_seq_len, position=position)
    model.call("double")   # weights and buffers to float64 (nn.Module.double)
    return model


def _largest_change(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.to(torch.float64) - b.to(torch.float64)).abs().max())


def _works(make, vocab_size: int, max_seq_len: int, ids: torch.Tensor) -> dict:
    """What any real TinyLM does on an ordinary input, asked first by the property and error-path
    checks: a class that returns a constant or always raises earns nothing there."""
    model = _float64_model(make, vocab_size, max_seq_len, "none")
    first_changed = ids.clone()
    first_changed[:, 0] = (ids[:, 0] + 1) % vocab_size
    logits = model(ids)
    return {"logits shape": list(logits.shape),
            "the last logits change when the first token changes":
                _largest_change(logits[:, -1], model(first_changed)[:, -1]) > 1e-10}


@pytest.mark.exercise("TinyLM")
def test_tiny_lm_logits_have_shape_batch_sequence_vocabulary(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ids = torch.randint(0, vocab_size, (3, seq_len), generator=rng)

    def scenario(make):
        return {method: list(make(vocab_size, D_MODEL, N_HEADS, max_seq_len, position=method)(ids).shape)
                for method in METHODS}

    expect_behaviour(candidate, reference, "TinyLM", scenario,
                     what=f"the shape of TinyLM(...)(input_ids of shape [3, {seq_len}]) per position method")


@pytest.mark.exercise("TinyLM")
def test_tiny_lm_head_is_the_embedding_weight(candidate, reference, rng):
    vocab_size, max_seq_len, _ = _sizes(rng)
    weight = torch.randn(vocab_size, D_MODEL, generator=rng)

    def scenario(make):
        model = make(vocab_size, D_MODEL, N_HEADS, max_seq_len, position="rope")
        model.set("token_embedding.weight", weight)
        tables = sum(1 for _, shape in model.parameters() if list(shape) == [vocab_size, D_MODEL])
        follows = bool(torch.equal(model.get("lm_head.weight").to(weight.dtype), weight))
        return {"lm_head.weight equals a newly set token_embedding.weight": follows,
                "parameters of shape [V, D]": tables}

    expect_behaviour(candidate, reference, "TinyLM", scenario, what="TinyLM weight tying")


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_logits_at_t_ignore_the_tokens_after_t(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ids = torch.randint(0, vocab_size, (2, seq_len), generator=rng)
    t = _randint(rng, 1, seq_len - 2)
    changed = ids.clone()
    changed[:, t + 1:] = (ids[:, t + 1:] + 1 + torch.randint(0, vocab_size - 1, ids[:, t + 1:].shape,
                                                             generator=rng)) % vocab_size

    first_changed = ids.clone()
    first_changed[:, 0] = (ids[:, 0] + 1) % vocab_size

    def scenario(make):
        unchanged = {}
        for method in METHODS:
            model = _float64_model(make, vocab_size, max_seq_len, method)
            unchanged[method] = _largest_change(model(ids)[:, : t + 1], model(changed)[:, : t + 1]) < 1e-9
        model = _float64_model(make, vocab_size, max_seq_len, "none")   # and the past is still visible
        sees_past = _largest_change(model(ids)[:, -1], model(first_changed)[:, -1]) > 1e-10
        return {f"logits[:, :{t + 1}] unchanged when the tokens after position {t} change": unchanged,
                "the last logits change when the first token changes": sees_past}

    expect_behaviour(candidate, reference, "TinyLM", scenario, what="causality")


@pytest.mark.exercise("TinyLM")
def test_tiny_lm_without_positions_sees_the_earlier_tokens_as_a_set(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ids = _distinct_ids(rng, vocab_size, seq_len)
    order = torch.cat((torch.randperm(seq_len - 1, generator=rng).roll(1), torch.tensor([seq_len - 1])))

    def scenario(make):
        works = _works(make, vocab_size, max_seq_len, ids)
        model = _float64_model(make, vocab_size, max_seq_len, "none")
        return {**works, "the last logits unchanged when the tokens before it are permuted":
                _largest_change(model(ids)[:, -1], model(ids[:, order])[:, -1]) < 1e-9}

    expect_behaviour(candidate, reference, "TinyLM", scenario,
                     what='position="none": the last logits unchanged when the tokens before it are permuted')


def _sees_the_order(candidate, reference, rng, order_of) -> None:
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ids = _distinct_ids(rng, vocab_size, seq_len)
    order = order_of(seq_len)

    def scenario(make):
        changed = {}
        for method in METHODS[1:]:
            model = _float64_model(make, vocab_size, max_seq_len, method)
            changed[method] = _largest_change(model(ids)[:, -1], model(ids[:, order])[:, -1]) > 1e-10
        return changed

    expect_behaviour(candidate, reference, "TinyLM", scenario,
                     what="the last logits change when the tokens before it are permuted")


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_every_position_method_sees_the_order(candidate, reference, rng):
    _sees_the_order(candidate, reference, rng,   # the tokens before the last one reversed
                    lambda seq_len: torch.cat((torch.arange(seq_len - 1).flip(0), torch.tensor([seq_len - 1]))))


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden
def test_tiny_lm_every_position_method_sees_two_early_tokens_swapped(candidate, reference, rng):
    _sees_the_order(candidate, reference, rng,   # only the first two tokens, the farthest from the last, swap
                    lambda seq_len: torch.cat((torch.tensor([1, 0]), torch.arange(2, seq_len))))


def _exception_name(error: Exception) -> str:
    """The exception type: named by the sandbox's message, or the exception itself (trusted code)."""
    if not isinstance(error, CandidateError):
        return type(error).__name__
    found = getattr(error, "exception_type", None) or re.search(r"\b(\w+(?:Error|Exception))\b", str(error))
    return found if isinstance(found, str) else (found.group(1) if found else "no exception type")


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden
def test_tiny_lm_rejects_an_unknown_position_method(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ids = _distinct_ids(rng, vocab_size, seq_len)

    def scenario(make):
        works = _works(make, vocab_size, max_seq_len, ids)
        try:
            make(vocab_size, D_MODEL, N_HEADS, max_seq_len, position="absolute")
        except Exception as error:  # CandidateError from the sandbox; the exception itself from trusted code
            return {**works, 'TinyLM(..., position="absolute") raises': _exception_name(error)}
        return {**works, 'TinyLM(..., position="absolute") raises': "no exception"}

    expect_behaviour(candidate, reference, "TinyLM", scenario, what='TinyLM(..., position="absolute")')


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden
def test_tiny_lm_rejects_a_sequence_longer_than_max_seq_len(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    ordinary = _distinct_ids(rng, vocab_size, seq_len)
    ids = torch.randint(0, vocab_size, (1, max_seq_len + _randint(rng, 1, 3)), generator=rng)

    def scenario(make):
        works = _works(make, vocab_size, max_seq_len, ordinary)
        model = make(vocab_size, D_MODEL, N_HEADS, max_seq_len, position="learned")
        try:
            model(ids)
        except Exception as error:
            return {**works, "raises": _exception_name(error)}
        return {**works, "raises": "no exception"}

    expect_behaviour(candidate, reference, "TinyLM", scenario,
                     what=f"TinyLM(max_seq_len={max_seq_len})(input_ids of length {ids.shape[1]})")
