"""Answer functions of this course's generated questions (a coursegen plugin module).

A quiz YAML names one of these functions (`generate: {answer: alibi_slope, params: ...}`)
and the ranges of its parameters. For each student's parameters the function calls the
reference solutions (solutions/<module>.py) to compute the answer, and runs the
catalogued mistakes (solutions/mistakes/) on the same inputs to obtain distractors, each
keyed by the mistake id and carrying the mistake's bilingual hint as feedback. Each one has
an independent oracle in quiz_oracles.py.

torch and the solutions are imported lazily, on the first call.
"""
from __future__ import annotations

import math
import random

from coursegen.plugin import Generated, InvalidParams, Wrong, answer_function, from_mistakes, reference

def _torch():
    import torch

    return torch


def _shape(t) -> list[int]:
    return [int(n) for n in t.shape]


# ---- tokens and embeddings -----------------------------------------------------------------

@answer_function("lookup_shape", kind="shape")
def lookup_shape(B: int, S: int, V: int, D: int) -> Generated:
    """Shape of embedding_lookup(weight [V, D], ids [B, S])."""
    torch = _torch()
    weight = torch.zeros(V, D, device="meta")
    ids = torch.zeros(B, S, dtype=torch.long, device="meta")
    answer = _shape(reference("embedding_lookup")(weight, ids))
    wrong = {
        "vocab-as-width": Wrong([B, S, V]),
        "ids-shape": Wrong([B, S]),
        "table-shape": Wrong([V, D]),
    }
    return Generated(answer, wrong)


def _ids_for(seed: int, length: int, vocab: int) -> list[int]:
    """A short id sequence with at least one repeat, drawn from `seed` (stable across runs)."""
    rng = random.Random(seed)
    ids = [rng.randrange(2, vocab) for _ in range(length - 1)]
    ids.insert(rng.randrange(length), rng.choice(ids))  # make sure one id repeats
    return ids


@answer_function("gradient_rows", kind="number")
def gradient_rows(seed: int, length: int, V: int) -> Generated:
    """Rows of a [V, D] table with a non-zero gradient after looking up `ids` (via embedding_backward)."""
    torch = _torch()
    ids = _ids_for(seed, length, V)
    input_ids = torch.tensor(ids)
    grad_output = torch.ones(length, 4)

    def rows(backward) -> int:
        grad = backward(input_ids, grad_output, V)
        return int((grad != 0).any(dim=1).sum())

    wrong = from_mistakes("embedding_backward", rows)
    wrong["every-position"] = Wrong(length)
    wrong["whole-table"] = Wrong(V)
    return Generated(rows(reference("embedding_backward")), wrong, {"ids": str(ids)})


@answer_function("gradient_accumulated", kind="number")
def gradient_accumulated(seed: int, length: int, V: int, g: float) -> Generated:
    """Entry [v, 0] of the table's gradient when every output gradient is g, v the repeated id."""
    torch = _torch()
    ids = _ids_for(seed, length, V)
    repeated = max(set(ids), key=lambda i: (ids.count(i), -i))
    input_ids = torch.tensor(ids)
    grad_output = torch.full((length, 3), float(g))

    def entry(backward) -> float:
        return float(backward(input_ids, grad_output, V)[repeated, 0])

    wrong = from_mistakes("embedding_backward", entry)
    wrong["no-accumulation"] = Wrong(float(g))
    return Generated(entry(reference("embedding_backward")), wrong,
                     {"ids": str(ids), "v": repeated, "g": g, "count": ids.count(repeated)})


# ---- LM head and tying ---------------------------------------------------------------------

@answer_function("logits_shape", kind="shape")
def logits_shape(B: int, S: int, V: int, D: int) -> Generated:
    """Shape of lm_logits(hidden [B, S, D], weight [V, D])."""
    torch = _torch()
    hidden = torch.zeros(B, S, D, device="meta")
    weight = torch.zeros(V, D, device="meta")
    answer = _shape(reference("lm_logits")(hidden, weight))
    wrong = {
        "hidden-shape": Wrong([B, S, D]),
        "vocab-before-positions": Wrong([B, V, S]),
        "one-position": Wrong([B, V]),
    }
    return Generated(answer, wrong)


@answer_function("tying_saved", kind="number")
def tying_saved(V: int, D: int) -> Generated:
    """Parameters saved by tying: count_parameters(V, D, False) - count_parameters(V, D, True)."""
    count = reference("count_parameters")
    wrong = from_mistakes("count_parameters", lambda f: int(f(V, D, False) - f(V, D, True)))
    wrong["untied-total"] = Wrong(count(V, D, False))
    wrong["vocab-plus-width"] = Wrong(V + D)
    return Generated(int(count(V, D, False) - count(V, D, True)), wrong)


@answer_function("untied_parameters", kind="number")
def untied_parameters(V: int, D: int) -> Generated:
    """count_parameters(V, D, tied=False): input embedding plus a separate bias-free LM head."""
    count = reference("count_parameters")
    wrong = from_mistakes("count_parameters", lambda f: int(f(V, D, False)))
    wrong["one-matrix"] = Wrong(count(V, D, True))
    wrong["with-bias"] = Wrong(count(V, D, False) + V)
    return Generated(int(count(V, D, False)), wrong)


@answer_function("logit_value", kind="number")
def logit_value(seed: int, v: int) -> Generated:
    """logits[0, 0, v] for a 3-dim hidden vector and a 4x3 weight (small integers)."""
    torch = _torch()
    rng = random.Random(seed)
    h = [rng.randint(-3, 3) for _ in range(3)]
    W = [[rng.randint(-2, 2) for _ in range(3)] for _ in range(4)]
    hidden = torch.tensor([[h]], dtype=torch.float64)
    weight = torch.tensor(W, dtype=torch.float64)

    def logit(fn) -> float:
        return float(fn(hidden, weight)[0, 0, v])

    wrong = from_mistakes("lm_logits", logit)
    wrong["neighbour-row"] = Wrong(float(sum(a * b for a, b in zip(h, W[(v + 1) % 4]))))
    wrong["sum-of-row"] = Wrong(float(sum(W[v])))
    rows = "\\\\ ".join(" & ".join(str(x) for x in row) for row in W)
    return Generated(logit(reference("lm_logits")), wrong,
                     {"h": str(h), "W": f"\\begin{{bmatrix}} {rows} \\end{{bmatrix}}", "v": v})


# ---- sinusoidal positions ------------------------------------------------------------------

@answer_function("sinusoidal_value", kind="number")
def sinusoidal_value(pos: int, dim: int, d_model: int) -> Generated:
    """PE[pos, dim] of sinusoidal_encoding(pos + 1, d_model)."""
    if dim >= d_model:
        raise InvalidParams(f"dim {dim} must be below d_model {d_model}")

    def value(fn) -> float:
        return float(fn(pos + 1, d_model)[pos, dim])

    wrong = from_mistakes("sinusoidal_encoding", value)
    facts = {"i": dim // 2, "two_i": dim - dim % 2,
             "parity": "even (sine)" if dim % 2 == 0 else "odd (cosine)",
             "parity_zh": "偶数维（正弦）" if dim % 2 == 0 else "奇数维（余弦）"}
    return Generated(value(reference("sinusoidal_encoding")), wrong, facts)


@answer_function("sinusoidal_wavelength", kind="number")
def sinusoidal_wavelength(i: int, d_model: int) -> Generated:
    """Wavelength (in positions) of pair i: 2*pi / omega_i, omega_i read off PE[1, 2i] = sin(omega_i)."""
    if 2 * i >= d_model:
        raise InvalidParams(f"pair {i} does not exist for d_model {d_model}")

    def wavelength(fn) -> float:
        omega = math.asin(float(fn(2, d_model).double()[1, 2 * i]))  # omega_i <= 1 < pi/2, so asin is exact
        return 2 * math.pi / omega

    # a wavelength is a positive number of positions: a mistake that reads a negative one off the
    # table (a swapped sin/cos) is no answer a student would give, so it offers no distractor
    wrong = {key: w for key, w in from_mistakes("sinusoidal_encoding", wavelength).items() if w.value > 0}
    answer = wavelength(reference("sinusoidal_encoding"))
    wrong["frequency-not-wavelength"] = Wrong(1 / answer * 2 * math.pi)
    wrong["forgot-two-pi"] = Wrong(answer / (2 * math.pi))
    return Generated(answer, wrong)


@answer_function("added_shape", kind="shape")
def added_shape(B: int, S: int, D: int) -> Generated:
    """Shape of token embeddings [B, S, D] plus sinusoidal_encoding(S, D) (broadcast)."""
    torch = _torch()
    out = torch.zeros(B, S, D) + reference("sinusoidal_encoding")(S, D)
    return Generated(_shape(out), {"concatenated": Wrong([B, S, 2 * D]),
                                   "position-table": Wrong([S, D]),
                                   "extra-axis": Wrong([B, S, S, D])})


# ---- learned and relative positions --------------------------------------------------------

@answer_function("learned_table_parameters", kind="number")
def learned_table_parameters(max_seq_len: int, D: int) -> Generated:
    """Trainable parameters of LearnedPositionalEmbedding(max_seq_len, D)."""
    module = reference("LearnedPositionalEmbedding")(max_seq_len, D)
    answer = sum(p.numel() for p in module.parameters())
    return Generated(int(answer), {"added": Wrong(max_seq_len + D), "one-row": Wrong(D),
                                   "times-two": Wrong(2 * max_seq_len * D)})


@answer_function("relative_offset", kind="number")
def relative_offset(S: int, i: int, j: int) -> Generated:
    """relative_positions(S)[i, j]: where key j stands relative to query i."""
    if i >= S or j >= S or i == j:
        raise InvalidParams("i and j must be distinct positions below S")

    def offset(fn) -> int:
        return int(fn(S)[i, j])

    wrong = from_mistakes("relative_positions", offset)
    wrong["sign-flipped"] = Wrong(i - j)
    wrong["distance-only"] = Wrong(abs(j - i))
    return Generated(offset(reference("relative_positions")), wrong)


@answer_function("relative_distinct", kind="number")
def relative_distinct(S: int) -> Generated:
    """Number of distinct offsets in relative_positions(S)."""
    def distinct(fn) -> int:
        return int(fn(S).unique().numel())

    wrong = from_mistakes("relative_positions", distinct)
    wrong["one-per-position"] = Wrong(S)
    wrong["one-per-pair"] = Wrong(S * S)
    return Generated(distinct(reference("relative_positions")), wrong)


# ---- RoPE and ALiBi ------------------------------------------------------------------------

def _rope_pair(fn, p: int, i: int, d: int, pair: tuple[float, float]):
    torch = _torch()
    x = torch.zeros(1, 1, 1, d, dtype=torch.float64)
    x[..., 2 * i], x[..., 2 * i + 1] = pair
    out = fn(x, positions=torch.tensor([p]))
    return float(out[0, 0, 0, 2 * i]), float(out[0, 0, 0, 2 * i + 1])


@answer_function("rope_angle", kind="number")
def rope_angle(p: int, i: int, d: int) -> Generated:
    """The angle (radians, not folded into (-pi, pi]) apply_rope turns pair i at position p.

    Read back from rotating (1, 0): at position 1 the angle theta_i = base^(-2i/d) lies in
    (0, 1], so atan2 returns it exactly; the angle at position p is p * theta_i, and the
    rotation apply_rope performs at p is checked to be that angle (modulo 2 pi)."""
    if 2 * i >= d:
        raise InvalidParams(f"pair {i} does not exist for head dimension {d}")

    def angle(fn) -> float:
        theta = math.atan2(*reversed(_rope_pair(fn, 1, i, d, (1.0, 0.0))))
        x0, x1 = _rope_pair(fn, p, i, d, (1.0, 0.0))
        if abs(x0 - math.cos(p * theta)) > 1e-5 or abs(x1 - math.sin(p * theta)) > 1e-5:
            raise ValueError(f"apply_rope at position {p} is not {p} times its rotation at position 1")
        return p * theta

    answer = angle(reference("apply_rope"))
    return Generated(answer, from_mistakes("apply_rope", angle), {"theta": f"{answer / p:.6g}"})


@answer_function("rope_rotated_first", kind="number")
def rope_rotated_first(p: int, i: int, d: int, x0: int, x1: int) -> Generated:
    """First component of pair i = (x0, x1) after apply_rope at position p."""
    if 2 * i >= d:
        raise InvalidParams(f"pair {i} does not exist for head dimension {d}")
    if x0 == 0 and x1 == 0:
        raise InvalidParams("the zero pair does not rotate")

    def first(fn) -> float:
        return _rope_pair(fn, p, i, d, (float(x0), float(x1)))[0]

    wrong = from_mistakes("apply_rope", first)
    wrong["not-rotated"] = Wrong(float(x0))
    a = p * 10000.0 ** (-2 * i / d)  # shown in the explanation only; the key comes from apply_rope
    return Generated(first(reference("apply_rope")), wrong, {"a": f"{a:.6g}"})


@answer_function("rope_shape", kind="shape")
def rope_shape(B: int, H: int, S: int, d: int) -> Generated:
    """Shape of apply_rope(q) for q of shape [B, H, S, d]."""
    torch = _torch()
    out = reference("apply_rope")(torch.zeros(B, H, S, d))
    return Generated(_shape(out), {"half-width": Wrong([B, H, S, d // 2]),
                                   "pairs-axis": Wrong([B, H, S, d // 2, 2]),
                                   "heads-merged": Wrong([B, S, H * d])})


@answer_function("alibi_slope", kind="number")
def alibi_slope(h: int, H: int) -> Generated:
    """alibi_slopes(H)[h - 1]: the slope of head h (counted from 1)."""
    if h > H:
        raise InvalidParams(f"head {h} does not exist among {H}")

    def slope(fn) -> float:
        return float(fn(H)[h - 1])

    wrong = from_mistakes("alibi_slopes", slope)
    slopes = reference("alibi_slopes")(H)
    answer = float(slopes[h - 1])
    # Counting heads from 0 shifts every head down by one: head h gets the slope of head h - 1
    # (and head 1 gets 2^0 = 1), whatever rule H follows.
    wrong["counted-from-zero"] = Wrong(float(slopes[h - 2]) if h >= 2 else 1.0)
    n = 2 ** (H.bit_length() - 1)  # the largest power of two <= H, named in the feedback
    return Generated(answer, wrong, {"n": n, "first_slope": f"{float(slopes[0]):.6g}"})


@answer_function("alibi_bias_value", kind="number")
def alibi_bias_value(h: int, H: int, i: int, j: int) -> Generated:
    """alibi_bias(H, S)[h - 1, i, j] with S = max(i, j) + 1."""
    if h > H or i == j:
        raise InvalidParams("head beyond H, or a token compared with itself")
    S = max(i, j) + 1

    def bias(fn) -> float:
        return float(fn(H, S)[h - 1, i, j])

    wrong = from_mistakes("alibi_bias", bias)
    answer = bias(reference("alibi_bias"))
    wrong["positive-bias"] = Wrong(-answer)
    slope_h = float(reference("alibi_slopes")(H)[h - 1])
    wrong["slope-only"] = Wrong(-slope_h)
    return Generated(answer, wrong, {"slope": f"{slope_h:.6g}", "distance": abs(i - j)})


# ---- subwords and the training objective ---------------------------------------------------

@answer_function("bpe_run_merge_length", kind="number")
def bpe_run_merge_length(n: int) -> Generated:
    """Length of merge_pair([a] * n, (a, a), new_id): one merge over a run of n equal tokens."""
    def length(fn) -> int:
        return len(fn([7] * n, (7, 7), 99))

    wrong = from_mistakes("merge_pair", length)
    wrong["pair-count"] = Wrong(n - 1)                  # the number of (overlapping) pairs, not of tokens left
    wrong["half-rounded-down"] = Wrong(n // 2)          # forgot the token left over in an odd run
    if wrong["half-rounded-down"].value == length(reference("merge_pair")):
        del wrong["half-rounded-down"]
    return Generated(length(reference("merge_pair")), wrong)


@answer_function("causal_allowed_count", kind="number")
def causal_allowed_count(S: int) -> Generated:
    """Number of True entries of causal_mask(S): the (query, key) pairs attention may use."""
    def allowed(fn) -> int:
        return int(fn(S).to(dtype=_torch().int64).sum())

    wrong = from_mistakes("causal_mask", allowed)
    wrong["every-pair"] = Wrong(S * S)
    wrong["one-per-query"] = Wrong(S)
    return Generated(allowed(reference("causal_mask")), wrong)


@answer_function("loss_target_count", kind="number")
def loss_target_count(S: int, L1: int, L2: int) -> Generated:
    """How many targets next_token_loss averages over for two sequences of lengths L1, L2 right-padded
    to S with pad id 0 and ignore_id=0; read off the loss: every target costs 0 except one costing ln V."""
    if not (2 <= L1 <= S and 2 <= L2 <= S) or max(L1, L2) != S:
        raise InvalidParams("both lengths must be in 2..S and the longer one must be S")
    torch = _torch()
    V = 5
    ids = torch.zeros(2, S, dtype=torch.long)
    ids[0, :L1] = torch.arange(L1) % 4 + 1
    ids[1, :L2] = torch.arange(L2) % 4 + 1
    logits = torch.zeros(2, S, V, dtype=torch.float64)
    logits.scatter_(-1, ids.roll(-1, dims=1).unsqueeze(-1), 60.0)   # each target's logit: loss ~ e^-60
    logits[0, 0] = 0.0                                               # one uniform position: loss ln V

    def count(fn) -> int:
        return round(math.log(V) / float(fn(logits, ids, ignore_id=0)))

    wrong = from_mistakes("next_token_loss", count)
    wrong["pads-counted"] = Wrong(2 * (S - 1))
    wrong["no-shift"] = Wrong(L1 + L2)
    return Generated(count(reference("next_token_loss")), wrong)


# ---- RoPE in practice ----------------------------------------------------------------------

@answer_function("ntk_scaled_base", kind="number")
def ntk_scaled_base(base: int, scale: int, d: int) -> Generated:
    """ntk_base(base, scale, d): the NTK-aware base for a context `scale` times longer."""
    wrong = from_mistakes("ntk_base", lambda fn: fn(float(base), float(scale), d))
    return Generated(reference("ntk_base")(float(base), float(scale), d), wrong)


@answer_function("ntk_pair_slowdown", kind="number")
def ntk_pair_slowdown(scale: int, d: int, i: int) -> Generated:
    """How many times slower pair i turns with the NTK-aware base: theta_i(base) / theta_i(ntk_base(base))."""
    if 2 * i >= d:
        raise InvalidParams(f"pair {i} does not exist for head dimension {d}")

    def slowdown(fn) -> float:
        new_base = fn(10000.0, float(scale), d)
        return (new_base / 10000.0) ** (2 * i / d)   # theta_i = base^(-2i/d)

    wrong = from_mistakes("ntk_base", slowdown)
    wrong["every-pair-by-scale"] = Wrong(float(scale))
    wrong["no-slowdown"] = Wrong(1.0)
    return Generated(slowdown(reference("ntk_base")), wrong)


@answer_function("rope_wavelength", kind="number")
def rope_wavelength(base: int, i: int, d: int) -> Generated:
    """Positions pair i needs for one full turn: 2*pi / theta_i, theta_i read from apply_rope at position 1."""
    if 2 * i >= d:
        raise InvalidParams(f"pair {i} does not exist for head dimension {d}")
    torch = _torch()

    def wavelength(fn) -> float:
        x = torch.zeros(1, 1, 1, d, dtype=torch.float64)
        x[..., 2 * i] = 1.0
        out = fn(x, positions=torch.tensor([1]), base=float(base))
        theta = math.atan2(float(out[0, 0, 0, 2 * i + 1]), float(out[0, 0, 0, 2 * i]))  # theta_i <= 1 < pi
        return 2 * math.pi / theta

    wrong = from_mistakes("apply_rope", wavelength)
    answer = wavelength(reference("apply_rope"))
    wrong["forgot-two-pi"] = Wrong(answer / (2 * math.pi))
    return Generated(answer, wrong)


# ---- capstone: a tiny language model -------------------------------------------------------

@answer_function("uniform_loss", kind="number")
def uniform_loss(V: int, S: int) -> Generated:
    """next_token_loss of equal logits over V tokens (an untrained model): ln V, whatever the ids."""
    torch = _torch()
    logits = torch.zeros(1, S, V, dtype=torch.float64)
    ids = torch.arange(S) % V

    def loss(fn) -> float:
        return float(fn(logits, ids[None]))

    wrong = from_mistakes("next_token_loss", loss)
    wrong["log-base-2"] = Wrong(math.log2(V))
    wrong["probability"] = Wrong(1 / V)
    return Generated(loss(reference("next_token_loss")), wrong)


@answer_function("tinylm_parameters", kind="number")
def tinylm_parameters(V: int, D: int, position: str) -> Generated:
    """Trainable parameters of the reference TinyLM(V, D, 2, 64, position)."""
    model = reference("TinyLM")(V, D, 2, 64, position=position)
    answer = sum(p.numel() for p in model.parameters())
    untied = answer + V * D
    wrong = {"untied": Wrong(untied), "embedding-only": Wrong(V * D)}
    if position != "learned":
        wrong["counted-a-position-table"] = Wrong(answer + 64 * D)
    return Generated(int(answer), wrong)


@answer_function("tinylm_logits_shape", kind="shape")
def tinylm_logits_shape(B: int, S: int, V: int) -> Generated:
    """Shape of TinyLM(V, 16, 2, 64)(input_ids [B, S])."""
    torch = _torch()
    model = reference("TinyLM")(V, 16, 2, 64, position="rope")
    with torch.no_grad():
        out = model(torch.zeros(B, S, dtype=torch.long))
    return Generated(_shape(out), {"hidden-shape": Wrong([B, S, 16]), "last-position-only": Wrong([B, V]),
                                   "vocab-first": Wrong([B, V, S])})
