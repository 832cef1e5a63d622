"""Checks for exercises/embedding.py: embedding_lookup, one_hot_lookup, embedding_backward."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_close, expect_equal


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def _table(rng: torch.Generator, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A random [V, D] table with V != D, so that a transposed layout shows."""
    vocab_size, d_model = _randint(rng, 12, 30), _randint(rng, 3, 8)
    return torch.randn(vocab_size, d_model, generator=rng, dtype=dtype)


# ---- embedding_lookup --------------------------------------------------------------------------

@pytest.mark.exercise("embedding_lookup")
@pytest.mark.points(2)
def test_embedding_lookup_returns_table_rows_for_a_batch_of_ids(candidate, reference, rng):
    weight = _table(rng)
    ids = torch.randint(0, weight.shape[0], (3, 5), generator=rng)
    expect_call(candidate, reference, "embedding_lookup", weight, ids)


@pytest.mark.exercise("embedding_lookup")
@pytest.mark.hidden(en='ids of any shape (not only [B, S]) must give [..., D]',
                    zh='任何形状的 ids（不只是 [B, S]）都必须得到 [..., D]')
def test_embedding_lookup_accepts_ids_of_any_shape(candidate, reference, rng):
    weight = _table(rng)
    for shape in [(7,), (2, 3, 4), (1, 1)]:
        expect_call(candidate, reference, "embedding_lookup", weight, torch.randint(0, weight.shape[0], shape, generator=rng))


@pytest.mark.exercise("embedding_lookup")
@pytest.mark.hidden(en='a float64 table must give float64 vectors (the dtype is kept)',
                    zh='float64 的表必须得到 float64 的向量（保持 dtype）')
def test_embedding_lookup_keeps_a_float64_table_float64(candidate, reference, rng):
    weight = _table(rng, torch.float64)
    ids = torch.randint(0, weight.shape[0], (2, 4), generator=rng)
    expect_call(candidate, reference, "embedding_lookup", weight, ids, atol=1e-12, rtol=1e-12)


# ---- one_hot_lookup ----------------------------------------------------------------------------

@pytest.mark.exercise("one_hot_lookup")
@pytest.mark.points(2)
def test_one_hot_lookup_equals_the_table_rows(candidate, reference, rng):
    weight = _table(rng)
    ids = torch.randint(0, weight.shape[0], (3, 6), generator=rng)
    expect_call(candidate, reference, "one_hot_lookup", weight, ids)


@pytest.mark.exercise("one_hot_lookup")
@pytest.mark.hidden(en='the one-hot vectors must have V classes even when the largest ids do not appear',
                    zh='即使最大的 id 没有出现，one-hot 向量也必须有 V 个类别')
def test_one_hot_lookup_when_the_largest_ids_do_not_appear(candidate, reference, rng):
    weight = _table(rng)
    ids = torch.randint(0, weight.shape[0] // 2, (2, 5), generator=rng)
    expect_call(candidate, reference, "one_hot_lookup", weight, ids)


@pytest.mark.exercise("one_hot_lookup")
@pytest.mark.hidden(en='a float64 table must give float64 vectors (the dtype is kept)',
                    zh='float64 的表必须得到 float64 的向量（保持 dtype）')
def test_one_hot_lookup_keeps_a_float64_table_float64(candidate, reference, rng):
    weight = _table(rng, torch.float64)
    ids = torch.randint(0, weight.shape[0], (4,), generator=rng)
    expect_call(candidate, reference, "one_hot_lookup", weight, ids, atol=1e-12, rtol=1e-12)


# ---- embedding_backward ------------------------------------------------------------------------

@pytest.mark.exercise("embedding_backward")
@pytest.mark.points(2)
def test_embedding_backward_sums_the_gradients_of_repeated_ids(candidate, reference, rng):
    vocab_size, d_model = _randint(rng, 5, 8), _randint(rng, 3, 6)
    ids = torch.randint(0, vocab_size, (3, 8), generator=rng)   # 24 positions over <= 8 ids: repeats
    ids[0, :3] = ids[1, 5]                                        # at least one id three times or more
    grad = torch.randn(3, 8, d_model, generator=rng)
    expect_call(candidate, reference, "embedding_backward", ids, grad, vocab_size)


@pytest.mark.exercise("embedding_backward")
def test_embedding_backward_gives_zero_rows_to_absent_ids(candidate, reference, rng):
    vocab_size, d_model = _randint(rng, 10, 16), _randint(rng, 2, 5)
    present = torch.randperm(vocab_size, generator=rng)[:4]
    ids = present[torch.randint(0, 4, (2, 5), generator=rng)]
    grad = torch.randn(2, 5, d_model, generator=rng)
    actual = expect_call(candidate, reference, "embedding_backward", ids, grad, vocab_size)
    absent = torch.ones(vocab_size, dtype=torch.bool)
    absent[ids.reshape(-1)] = False
    expect_equal(actual[absent], torch.zeros(int(absent.sum()), d_model), what="the rows of ids that do not appear")


@pytest.mark.exercise("embedding_backward")
@pytest.mark.hidden(en='the gradient must equal what autograd gives for weight[input_ids]',
                    zh='梯度必须等于 autograd 对 weight[input_ids] 求得的结果')
def test_embedding_backward_matches_autograd_of_the_lookup(candidate, rng):
    vocab_size, d_model = _randint(rng, 4, 9), _randint(rng, 2, 6)
    ids = torch.randint(0, vocab_size, (_randint(rng, 1, 4), _randint(rng, 1, 12)), generator=rng)
    grad = torch.randn(*ids.shape, d_model, generator=rng)
    weight = torch.zeros(vocab_size, d_model, requires_grad=True)
    weight[ids].backward(grad)
    actual = candidate.embedding_backward(ids, grad, vocab_size)
    expect_close(actual, weight.grad, atol=1e-5, rtol=1e-5, what="embedding_backward",
                 target="embedding_backward", redo=lambda impl: impl(ids.clone(), grad.clone(), vocab_size))


@pytest.mark.exercise("embedding_backward")
@pytest.mark.hidden(en='a float64 grad_output must give a float64 gradient (the dtype is kept)',
                    zh='float64 的 grad_output 必须得到 float64 的梯度（保持 dtype）')
def test_embedding_backward_keeps_a_float64_gradient_float64(candidate, reference, rng):
    ids = torch.tensor([[1, 3, 1]])
    grad = torch.randn(1, 3, 4, generator=rng, dtype=torch.float64)
    expect_call(candidate, reference, "embedding_backward", ids, grad, 5, atol=1e-12, rtol=1e-12)
