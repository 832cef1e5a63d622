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

from grader.checking import CandidateError, CheckFailure, expect_behaviour

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
                     what=f"the shape of TinyLM(...)(input_ids of shape [3, {seq_len}]) per position method",
                     evidence=_evidence(rng))


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

    expect_behaviour(candidate, reference, "TinyLM", scenario, what="TinyLM weight tying", evidence=_evidence(rng))


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

    expect_behaviour(candidate, reference, "TinyLM", scenario, what="causality", evidence=_evidence(rng))


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
                     what='position="none": the last logits unchanged when the tokens before it are permuted',
                     evidence=_evidence(rng))


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
                     what="the last logits change when the tokens before it are permuted",
                     evidence=_evidence(rng))


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_every_position_method_sees_the_order(candidate, reference, rng):
    _sees_the_order(candidate, reference, rng,   # the tokens before the last one reversed
                    lambda seq_len: torch.cat((torch.arange(seq_len - 1).flip(0), torch.tensor([seq_len - 1]))))


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden(en='with every position method, swapping the first two tokens must change the last logits',
                    zh='对每种位置方法，交换最前面的两个 token 都必须改变最后一个位置的 logits')
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
@pytest.mark.hidden(en='an unknown `position` must raise ValueError',
                    zh='未知的 `position` 必须抛出 ValueError')
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

    expect_behaviour(candidate, reference, "TinyLM", scenario, what='TinyLM(..., position="absolute")',
                     evidence=_evidence(rng))


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden(en='a sequence longer than max_seq_len must raise ValueError in forward',
                    zh='比 max_seq_len 更长的序列必须在 forward 中抛出 ValueError')
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
                     what=f"TinyLM(max_seq_len={max_seq_len})(input_ids of length {ids.shape[1]})",
                     evidence=_evidence(rng))


# ---- behaviours the lesson teaches, with known weights -------------------------------------------
#
# The model's attention weights are random, so the checks below set every weight to a known value
# first, whatever the model's layout: the token table E (its rows of mean 0 and variance 1, so a
# LayerNorm leaves them as they are) and, for every other parameter, the identity ([D, D]; stacked
# identities for a fused [3D, D] / [D, 3D] projection), ones for a [D] vector named "...weight"
# (a LayerNorm's gain), zeros for every bias. Then q = k = v = the token vectors, the output
# projection is the identity, and the logits at each position are E (x + y) up to a positive factor
# (a final LayerNorm only rescales x + y, whose mean is 0): the checks compare the direction of the
# logits at every position, which follows from the lesson's formulas alone.

KNOWN_D, KNOWN_HEADS = 16, 4   # head size 4: RoPE frequencies 1 and 1/100 (from D: 1 and 0.316)


def _known_table(rng: torch.Generator, vocab_size: int, d_model: int) -> torch.Tensor:
    table = torch.randn(vocab_size, d_model, generator=rng, dtype=torch.float64)
    table = table - table.mean(dim=1, keepdim=True)
    return table / table.pow(2).mean(dim=1, keepdim=True).sqrt()


def _known_value(name: str, shape: list[int], d_model: int) -> torch.Tensor | None:
    """The known value of one parameter other than the token table (None: no known value)."""
    eye = torch.eye(d_model, dtype=torch.float64)
    if len(shape) == 2 and shape[1] == d_model and shape[0] % d_model == 0 and shape[0] // d_model in (1, 2, 3):
        return eye.repeat(shape[0] // d_model, 1)
    if len(shape) == 2 and shape[0] == d_model and shape[1] % d_model == 0 and shape[1] // d_model in (2, 3):
        return eye.repeat(1, shape[1] // d_model)
    if len(shape) == 1:
        gain = name.rsplit(".", 1)[-1] == "weight" and shape[0] == d_model
        return torch.ones(shape, dtype=torch.float64) if gain else torch.zeros(shape, dtype=torch.float64)
    return None


def _with_known_weights(make, table: torch.Tensor, max_seq_len: int, position: str, n_heads: int = KNOWN_HEADS):
    vocab_size, d_model = table.shape
    model = make(vocab_size, d_model, n_heads, max_seq_len, position=position)
    model.call("double")
    for name, shape in model.parameters():
        if name in ("token_embedding.weight", "lm_head.weight"):
            model.set(name, table)
            continue
        if name == "position_embedding.weight" and list(shape) == [max_seq_len, d_model]:
            model.set(name, _known_table(torch.Generator().manual_seed(7), max_seq_len, d_model) / 2)
            continue
        value = _known_value(name, list(shape), d_model)
        if value is None:
            raise CheckFailure(_CANNOT_SET[_lang()].format(name=name, shape=list(shape)))
        model.set(name, value)
    return model


_CANNOT_SET = {
    "en": "this check sets every weight of TinyLM to a known value and cannot set the parameter {name} of shape "
          "{shape}: TinyLM's parameters must be the token table, [D, D] (or fused [3D, D]) projections, and [D] "
          "LayerNorm gains and biases.",
    "zh": "这个检查会把 TinyLM 的每个权重设为已知值，但无法设置形状为 {shape} 的参数 {name}："
          "TinyLM 的参数只能是 token 表、[D, D]（或合并的 [3D, D]）投影矩阵，以及 [D] 的 LayerNorm 增益和偏置。",
}


def _lang() -> str:
    from grader.checking import current_language

    return current_language()


def _directions(logits: torch.Tensor) -> torch.Tensor:
    """The logits at each position scaled to length 1 (a final LayerNorm's factor drops out)."""
    logits = logits.to(torch.float64)
    return logits / logits.norm(dim=-1, keepdim=True)


def _known_sequence(rng: torch.Generator, vocab_size: int, seq_len: int) -> torch.Tensor:
    return torch.randint(0, vocab_size, (1, seq_len), generator=rng)


def _known_logits(rng, methods: tuple[str, ...], n_heads: int = KNOWN_HEADS):
    """A scenario: the directions of the logits of a model with known weights, per method."""
    vocab_size, max_seq_len = 23, 12
    table = _known_table(rng, vocab_size, KNOWN_D)
    ids = _known_sequence(rng, vocab_size, max_seq_len)

    def scenario(make):
        return {method: _directions(_with_known_weights(make, table, max_seq_len, method, n_heads)(ids))
                for method in methods}

    return scenario


def _evidence(rng: torch.Generator):
    """What decides which catalogued mistake a failure shows: the logits with known weights of
    the methods that add nothing to x (with absolute positions, a LayerNorm would change x's rows
    and the logits would depend on the model's layout), drawn from a generator of their own so the
    check's inputs stay as they are."""
    return _known_logits(torch.Generator().manual_seed(rng.initial_seed() + 1), ("none", "rope", "alibi"))


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_attention_with_known_weights_scales_scores_by_one_over_sqrt_d_head(candidate, reference, rng):
    expect_behaviour(candidate, reference, "TinyLM", _known_logits(rng, ("none",)), atol=1e-4, rtol=0.0,
                     what='position="none", every weight known: the logits\' direction at each position '
                          "(causal softmax(q k^T / sqrt(d_head)) v, d_head = d_model / n_heads)")


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_rope_with_known_weights_rotates_q_and_k_at_head_frequencies(candidate, reference, rng):
    expect_behaviour(candidate, reference, "TinyLM", _known_logits(rng, ("rope",)), atol=1e-4, rtol=0.0,
                     what='position="rope", every weight known: the logits\' direction at each position '
                          "(q and k rotated by p * 10000^(-2i/d_head), v not rotated)")


@pytest.mark.exercise("TinyLM")
@pytest.mark.points(2)
def test_tiny_lm_alibi_with_known_weights_penalises_distance_with_the_slopes(candidate, reference, rng):
    expect_behaviour(candidate, reference, "TinyLM", _known_logits(rng, ("alibi",)), atol=1e-4, rtol=0.0,
                     what='position="alibi", every weight known: the logits\' direction at each position '
                          "(scores + -slope_h * |i - j|, slope_h = 2^(-8(h+1)/H))")


@pytest.mark.exercise("TinyLM")
@pytest.mark.hidden(en="with 6 heads (not a power of two), ALiBi must use the paper's slopes for every head",
                    zh="有 6 个头（不是 2 的幂）时，ALiBi 的每个头都必须使用论文中的斜率")
def test_tiny_lm_alibi_with_six_heads_uses_the_paper_slopes(candidate, reference, rng):
    vocab_size, max_seq_len, d_model = 29, 12, 24
    table = _known_table(rng, vocab_size, d_model)
    ids = _known_sequence(rng, vocab_size, max_seq_len)

    def scenario(make):
        return _directions(_with_known_weights(make, table, max_seq_len, "alibi", n_heads=6)(ids))

    expect_behaviour(candidate, reference, "TinyLM", scenario, atol=1e-4, rtol=0.0,
                     what='position="alibi" with 6 heads, every weight known: the logits\' direction')


@pytest.mark.exercise("TinyLM")
def test_tiny_lm_values_are_not_rotated_a_repeated_token_gives_equal_logits(candidate, reference, rng):
    vocab_size, max_seq_len, seq_len = _sizes(rng)
    token = _randint(rng, 0, vocab_size - 1)
    ids = torch.full((1, seq_len), token)
    ordinary = _distinct_ids(rng, vocab_size, seq_len)

    def scenario(make):
        works = _works(make, vocab_size, max_seq_len, ordinary)
        same = {}
        for method in ("none", "rope", "alibi"):
            logits = _float64_model(make, vocab_size, max_seq_len, method)(ids)
            same[method] = _largest_change(logits[:, :1].expand_as(logits), logits) < 1e-9
        return {**works, "one token repeated: the same logits at every position (v is never rotated)": same}

    expect_behaviour(candidate, reference, "TinyLM", scenario, evidence=_evidence(rng),
                     what="the logits of one token repeated, per method (none, rope, alibi)")


@pytest.mark.exercise("TinyLM")
def test_tiny_lm_head_has_no_bias(candidate, reference, rng):
    vocab_size, d_model = _randint(rng, 13, 19), 8          # V > D: logits without a bias lie in E's column space
    table = torch.randn(vocab_size, d_model, generator=rng, dtype=torch.float64)
    ids = torch.randint(0, vocab_size, (2, 6), generator=rng)

    def scenario(make):
        model = make(vocab_size, d_model, 2, 8, position="none")
        model.call("double")
        model.set("token_embedding.weight", table)
        logits = model(ids).to(torch.float64).reshape(-1, vocab_size).T           # [V, B*S]
        solution = torch.linalg.lstsq(table, logits).solution
        residual = float((table @ solution - logits).abs().max())
        names = [name for name, _ in model.parameters()]
        return {"lm_head.bias is a parameter": "lm_head.bias" in names,
                "the logits are token_embedding.weight @ h (no bias added)": residual < 1e-8}

    expect_behaviour(candidate, reference, "TinyLM", scenario, evidence=_evidence(rng),
                     what="TinyLM's lm_head (nn.Linear(D, V, bias=False))")
