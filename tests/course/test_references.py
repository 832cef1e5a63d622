"""The reference solutions satisfy the exercise API contract of the design notes, checked directly
(errors, dtypes, shapes) and against independent formulas (the ALiBi paper's code, autograd,
complex-number RoPE)."""

from __future__ import annotations

import math

import pytest
import torch

from solutions import alibi, attention, embedding, lm_head, positions, rope, tokens


# ---- tokens ----------------------------------------------------------------------------------


def test_encode_maps_unknown_tokens_to_the_id_of_unk_token():
    assert tokens.encode(["a", "zzz", "b"], {"a": 1, "b": 2, "[UNK]": 7}, unk_token="[UNK]") == [1, 7, 2]


def test_encode_raises_valueerror_when_unk_token_is_not_in_vocab():
    with pytest.raises(ValueError, match="zzz"):
        tokens.encode(["a", "zzz"], {"a": 1})


def test_pad_batch_right_pads_and_masks_real_tokens():
    ids, mask = tokens.pad_batch([[5, 6, 7], [8]], pad_id=9)
    assert ids.dtype == torch.long and mask.dtype == torch.bool
    assert ids.tolist() == [[5, 6, 7], [8, 9, 9]]
    assert mask.tolist() == [[True, True, True], [True, False, False]]


def test_pad_batch_of_no_sequences_raises_valueerror():
    with pytest.raises(ValueError):
        tokens.pad_batch([])


# ---- embedding -------------------------------------------------------------------------------


def test_lookups_agree_with_indexing_for_any_id_shape():
    weight = torch.randn(11, 4, dtype=torch.float64)
    ids = torch.randint(0, 11, (2, 3, 5))
    assert torch.equal(embedding.embedding_lookup(weight, ids), weight[ids])
    assert torch.allclose(embedding.one_hot_lookup(weight, ids), weight[ids])
    assert embedding.one_hot_lookup(weight, ids).dtype == torch.float64


def test_embedding_backward_equals_autograd_with_repeated_and_absent_ids():
    ids = torch.tensor([[1, 3, 1], [1, 0, 3]])
    grad = torch.randn(2, 3, 4, dtype=torch.float64)
    weight = torch.zeros(6, 4, dtype=torch.float64, requires_grad=True)
    weight[ids].backward(grad)
    result = embedding.embedding_backward(ids, grad, 6)
    assert result.dtype == torch.float64
    assert torch.allclose(result, weight.grad)
    assert torch.equal(result[[2, 4, 5]], torch.zeros(3, 4, dtype=torch.float64))


# ---- lm_head ---------------------------------------------------------------------------------


def test_lm_logits_is_hidden_times_weight_transposed():
    hidden, weight = torch.randn(2, 3, 4), torch.randn(7, 4)
    assert torch.allclose(lm_head.lm_logits(hidden, weight), torch.nn.functional.linear(hidden, weight))


def test_count_parameters_counts_a_tied_matrix_once():
    assert lm_head.count_parameters(100, 8, tied=True) == 800
    assert lm_head.count_parameters(100, 8, tied=False) == 1600
    assert isinstance(lm_head.count_parameters(100, 8, tied=True), int)


def test_tied_lm_shares_one_parameter_and_its_logits_follow_it():
    model = lm_head.TiedLM(10, 3)
    assert model.lm_head.weight is model.token_embedding.weight
    assert len(list(model.parameters())) == 1
    assert model.lm_head.bias is None
    new = torch.randn(10, 3)
    with torch.no_grad():
        model.token_embedding.weight.copy_(new)
    ids = torch.tensor([[1, 4]])
    assert torch.allclose(model(ids), new[ids] @ new.T)


# ---- attention -------------------------------------------------------------------------------


def test_self_attention_equals_torch_scaled_dot_product_attention():
    x = torch.randn(2, 5, 8)
    w_q, w_k, w_v = (torch.randn(8, 8) for _ in range(3))
    expected = torch.nn.functional.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v)
    assert torch.allclose(attention.self_attention(x, w_q, w_k, w_v), expected, atol=1e-5)


# ---- positions -------------------------------------------------------------------------------


def test_sinusoidal_encoding_is_float32_and_interleaves_sin_and_cos():
    pe = positions.sinusoidal_encoding(50, 6, base=100.0)
    assert pe.dtype == torch.float32 and pe.shape == (50, 6)
    p, i = 37, 2
    angle = p / 100.0 ** (2 * i / 6)
    assert pe[p, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
    assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_sinusoidal_encoding_odd_d_model_raises_valueerror():
    with pytest.raises(ValueError, match="7"):
        positions.sinusoidal_encoding(4, 7)


def test_learned_positional_embedding_adds_rows_0_to_s_minus_1():
    module = positions.LearnedPositionalEmbedding(6, 3)
    x = torch.randn(2, 4, 3)
    assert torch.equal(module(x), x + module.position_embedding.weight[:4])


def test_learned_positional_embedding_too_long_raises_valueerror_naming_both_lengths():
    with pytest.raises(ValueError, match=r"(?s)\b7\b.*\b6\b"):
        positions.LearnedPositionalEmbedding(6, 3)(torch.zeros(1, 7, 3))


def test_relative_positions_is_key_minus_query():
    rel = positions.relative_positions(4)
    assert rel.dtype == torch.long
    assert rel[1, 3].item() == 2 and rel[3, 1].item() == -2 and rel.diagonal().abs().sum() == 0


# ---- rope ------------------------------------------------------------------------------------


def _complex_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """An independent float64 RoPE: (x0 + i x1) * e^(i p base^(-2i/d))."""
    d = x.shape[-1]
    angles = positions.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(pairs * torch.polar(torch.ones_like(angles), angles)).reshape(x.shape)


def test_apply_rope_equals_complex_multiplication_with_repeated_positions():
    x = torch.randn(2, 3, 5, 8, dtype=torch.float64)
    pos = torch.tensor([4, 4, 0, 2047, 9])
    assert torch.allclose(rope.apply_rope(x, pos), _complex_rope(x, pos), atol=1e-12)


def test_apply_rope_rotates_counter_clockwise():
    x = torch.zeros(1, 1, 2, 2)
    x[..., 0] = 1.0  # the unit vector (1, 0) at positions 0 and 1
    out = rope.apply_rope(x)
    assert out[0, 0, 1, 1].item() == pytest.approx(math.sin(1.0), abs=1e-6)  # turned towards +y


def test_apply_rope_keeps_the_dtype_and_defaults_to_arange():
    x = torch.randn(1, 2, 6, 4)
    assert rope.apply_rope(x).dtype == torch.float32
    assert torch.equal(rope.apply_rope(x), rope.apply_rope(x, torch.arange(6)))


def test_apply_rope_rejects_positions_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"\[3\]"):
        rope.apply_rope(torch.zeros(1, 1, 3, 4), torch.arange(4))


# ---- alibi -----------------------------------------------------------------------------------


def _paper_get_slopes(n: int) -> list[float]:
    """get_slopes from the ALiBi authors' repository (ofirpress/attention_with_linear_biases)."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + _paper_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


@pytest.mark.parametrize("n_heads", range(1, 33))
def test_alibi_slopes_match_the_paper_code(n_heads):
    slopes = alibi.alibi_slopes(n_heads)
    assert slopes.dtype == torch.float32
    assert torch.allclose(slopes, torch.tensor(_paper_get_slopes(n_heads), dtype=torch.float32), rtol=1e-6, atol=0)


def test_alibi_bias_is_minus_slope_times_distance():
    bias = alibi.alibi_bias(6, 5)
    slopes = torch.tensor(_paper_get_slopes(6), dtype=torch.float32)
    assert bias.dtype == torch.float32 and bias.shape == (6, 5, 5)
    assert bias[5, 1, 4].item() == pytest.approx(-3 * slopes[5].item())
    assert bias[5, 4, 1].item() == pytest.approx(-3 * slopes[5].item())


def test_alibi_slopes_reject_zero_heads():
    with pytest.raises(ValueError):
        alibi.alibi_slopes(0)
