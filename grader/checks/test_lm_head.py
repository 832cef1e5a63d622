"""Checks for exercises/lm_head.py: lm_logits, count_parameters, TiedLM, next_token_loss."""
from __future__ import annotations

import pytest
import torch

from grader.checking import confirmed_by, expect_behaviour, expect_call, expect_raises, expect_working


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


# ---- lm_logits ---------------------------------------------------------------------------------

@pytest.mark.exercise("lm_logits")
@pytest.mark.points(2)
def test_lm_logits_scores_every_token_at_every_position(candidate, reference, rng):
    d_model, vocab_size = _randint(rng, 4, 8), _randint(rng, 10, 20)   # V != D
    hidden = torch.randn(2, 5, d_model, generator=rng)
    weight = torch.randn(vocab_size, d_model, generator=rng)
    expect_call(candidate, reference, "lm_logits", hidden, weight, atol=1e-5, rtol=1e-5)


@pytest.mark.exercise("lm_logits")
@pytest.mark.hidden(en='a batch of one sequence of one token must give logits of shape [1, 1, V]',
                    zh='一个只含一个 token 的序列组成的批次必须得到形状为 [1, 1, V] 的 logits')
def test_lm_logits_for_one_sequence_of_one_token(candidate, reference, rng):
    hidden = torch.randn(1, 1, 6, generator=rng)
    weight = torch.randn(9, 6, generator=rng)
    expect_call(candidate, reference, "lm_logits", hidden, weight, atol=1e-5, rtol=1e-5)


@pytest.mark.exercise("lm_logits")
@pytest.mark.hidden(en='float64 inputs must give float64 logits (the dtype is kept)',
                    zh='float64 的输入必须得到 float64 的 logits（保持 dtype）')
def test_lm_logits_keeps_float64_inputs_float64(candidate, reference, rng):
    hidden = torch.randn(2, 3, 4, generator=rng, dtype=torch.float64)
    weight = torch.randn(7, 4, generator=rng, dtype=torch.float64)
    expect_call(candidate, reference, "lm_logits", hidden, weight, atol=1e-12, rtol=1e-12)


# ---- count_parameters --------------------------------------------------------------------------

@pytest.mark.exercise("count_parameters")
def test_count_parameters_untied_counts_two_matrices(candidate, reference, rng):
    vocab_size, d_model = _randint(rng, 100, 5000), _randint(rng, 8, 256)
    with confirmed_by(candidate, "count_parameters", [((vocab_size, d_model, True), {})]):
        expect_call(candidate, reference, "count_parameters", vocab_size, d_model, False)


@pytest.mark.exercise("count_parameters")
def test_count_parameters_tied_counts_the_shared_matrix_once(candidate, reference, rng):
    vocab_size, d_model = _randint(rng, 100, 5000), _randint(rng, 8, 256)
    with confirmed_by(candidate, "count_parameters", [((vocab_size, d_model, False), {})]):
        expect_call(candidate, reference, "count_parameters", vocab_size, d_model, True)


@pytest.mark.exercise("count_parameters")
@pytest.mark.hidden(en="at GPT-2's size (V = 50257, D = 768) the count must be an exact int, tied and untied",
                    zh='在 GPT-2 的规模（V = 50257, D = 768）下，无论是否绑定，参数量都必须是精确的 int')
def test_count_parameters_at_gpt2_size_is_an_exact_int(candidate, reference):
    for tied in (True, False):
        with confirmed_by(candidate, "count_parameters", [((50257, 768, not tied), {})]):
            expect_call(candidate, reference, "count_parameters", 50257, 768, tied)


# ---- TiedLM ------------------------------------------------------------------------------------

def _tied_inputs(rng: torch.Generator):
    vocab_size, d_model = _randint(rng, 9, 15), _randint(rng, 3, 6)
    weight = torch.randn(vocab_size, d_model, generator=rng)
    ids = torch.randint(0, vocab_size, (2, 4), generator=rng)
    return vocab_size, d_model, weight, ids


@pytest.mark.exercise("TiedLM")
@pytest.mark.points(2)
def test_tied_lm_logits_follow_a_new_embedding_weight(candidate, reference, rng):
    vocab_size, d_model, weight, ids = _tied_inputs(rng)

    def scenario(make):
        model = make(vocab_size, d_model)
        model.set("token_embedding.weight", weight)
        return model(ids)

    expect_behaviour(candidate, reference, "TiedLM", scenario, atol=1e-5, rtol=1e-5,
                     what="TiedLM(...)(input_ids) after setting token_embedding.weight")


@pytest.mark.exercise("TiedLM")
def test_tied_lm_has_one_shared_parameter(candidate, reference, rng):
    vocab_size, d_model, _, _ = _tied_inputs(rng)

    def scenario(make):
        return [shape for _, shape in make(vocab_size, d_model).parameters()]

    def evidence(make):  # a copy starts equal and stays behind; an untied head never was equal
        model = make(vocab_size, d_model)
        at_start = bool(torch.equal(model.get("token_embedding.weight"), model.get("lm_head.weight")))
        model.set("token_embedding.weight", torch.zeros(vocab_size, d_model))
        return {"equal at start": at_start, "follows": bool(model.get("lm_head.weight").abs().max() == 0)}

    expect_behaviour(candidate, reference, "TiedLM", scenario, what="the shapes of TiedLM(...).parameters()",
                     evidence=evidence)


@pytest.mark.exercise("TiedLM")
@pytest.mark.hidden(en='setting lm_head.weight must change token_embedding.weight too (one shared Parameter)',
                    zh='设置 lm_head.weight 也必须改变 token_embedding.weight（同一个 Parameter）')
def test_tied_lm_embedding_follows_a_new_head_weight(candidate, reference, rng):
    vocab_size, d_model, weight, _ = _tied_inputs(rng)

    def scenario(make):
        model = make(vocab_size, d_model)
        model.set("lm_head.weight", weight)
        return model.get("token_embedding.weight")

    expect_behaviour(candidate, reference, "TiedLM", scenario,
                     what="token_embedding.weight after setting lm_head.weight")


# ---- next_token_loss ---------------------------------------------------------------------------

def _loss_inputs(rng: torch.Generator, batch: int, seq_len: int, vocab_size: int, scale: float = 2.0):
    logits = torch.randn(batch, seq_len, vocab_size, generator=rng) * scale
    ids = torch.randint(0, vocab_size, (batch, seq_len), generator=rng)
    return logits, ids


@pytest.mark.exercise("next_token_loss")
@pytest.mark.points(2)
def test_next_token_loss_scores_each_position_against_the_next_token(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, _randint(rng, 2, 4), _randint(rng, 4, 9), _randint(rng, 5, 12))
    expect_call(candidate, reference, "next_token_loss", logits, ids, atol=1e-5, rtol=1e-5)


@pytest.mark.exercise("next_token_loss")
@pytest.mark.points(2)
def test_next_token_loss_ignores_padding_targets(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, 3, 8, 10)
    pad_id = _randint(rng, 0, 9)
    ids[ids == pad_id] = (pad_id + 1) % 10                        # pad_id only where it is padding
    for b, length in enumerate((8, _randint(rng, 3, 6), _randint(rng, 2, 5))):
        ids[b, length:] = pad_id                                   # right padding
    expect_call(candidate, reference, "next_token_loss", logits, ids, ignore_id=pad_id, atol=1e-5, rtol=1e-5)


@pytest.mark.exercise("next_token_loss")
@pytest.mark.hidden(en='the result must stay finite (and right) for logits near 1e4',
                    zh='logits 接近 1e4 时结果必须保持有限（并且正确）')
def test_next_token_loss_is_finite_for_large_logits(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, 2, 6, 8, scale=1e4)            # logits near 1e4: exp overflows
    expect_call(candidate, reference, "next_token_loss", logits, ids, atol=1e-2, rtol=1e-5)


@pytest.mark.exercise("next_token_loss")
@pytest.mark.hidden(en='an ignore_id outside the vocabulary (such as -100) must be left out, not looked up',
                    zh='词表之外的 ignore_id（例如 -100）必须被排除，而不是被查找')
def test_next_token_loss_with_an_ignore_id_outside_the_vocabulary(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, 2, 7, 6)
    ids[0, _randint(rng, 1, 6)] = -100
    ids[1, 4:] = -100
    expect_call(candidate, reference, "next_token_loss", logits, ids, ignore_id=-100, atol=1e-5, rtol=1e-5)


@pytest.mark.exercise("next_token_loss")
@pytest.mark.hidden(en='float64 logits must give a float64 loss (the dtype is kept)',
                    zh='float64 的 logits 必须得到 float64 的损失（保持 dtype）')
def test_next_token_loss_keeps_float64_inputs_float64(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, 2, 5, 7)
    expect_call(candidate, reference, "next_token_loss", logits.double(), ids, atol=1e-10, rtol=1e-10)


@pytest.mark.exercise("next_token_loss")
@pytest.mark.hidden(en='with no target left (every target ignored, or S < 2) ValueError must be raised',
                    zh='没有剩下任何目标时（所有目标都被忽略，或 S < 2）必须抛出 ValueError')
def test_next_token_loss_without_any_target_raises_valueerror(candidate, reference, rng):
    logits, ids = _loss_inputs(rng, 2, 4, 5)
    expect_working(candidate, reference, "next_token_loss", logits, ids, atol=1e-5, rtol=1e-5)   # not always raising
    expect_raises(candidate, "next_token_loss", ValueError, logits, torch.full_like(ids, 3), ignore_id=3)
    expect_raises(candidate, "next_token_loss", ValueError, logits[:, :1], ids[:, :1])
