"""Independent oracles for this course's answer functions (a coursegen plugin module).

An answer function (quiz_answers.py beside this file) computes a key by calling the reference
solutions. That proves nothing about the key by itself: reading an angle back with atan2
once folded 40% of a question's keys into (-pi, pi]. Each answer function therefore has an
oracle here: the closed form a student would use, the formula the lesson and the question's
explanation state, written in plain Python (math, and random to re-draw seed-derived inputs).
Nothing here imports torch, solutions/ or the computing helpers of quiz_answers.py.

    @oracle("rope_angle")
    def rope_angle(p, i, d):
        return p * 10000 ** (-2 * i / d)

An oracle takes exactly the keyword parameters of its answer function and returns the key:
a float, an int (counts: the key must then be that integer exactly) or a shape (list of ints).
`coursegen verify` (coursegen.quiz.oracle_check) proves that every answer function named by a
quiz has an oracle and that both agree over the whole parameter space the quiz allows; the
quality gate refuses a generated question whose answer function has no oracle.
"""
from __future__ import annotations

import math
import random

from coursegen.plugin import oracle

BASE = 10000.0  # the base of sinusoidal encodings and RoPE in every question of this course


# ---- tokens and embeddings -----------------------------------------------------------------

@oracle("lookup_shape")
def lookup_shape(B: int, S: int, V: int, D: int) -> list[int]:
    """Each id [B, S] becomes a row of D numbers."""
    return [B, S, D]


def _seeded_ids(seed: int, length: int, vocab: int) -> list[int]:
    """The id sequence the question shows, re-drawn from its seed: length-1 ids in [2, vocab),
    then one of them inserted again at a random place."""
    rng = random.Random(seed)
    ids = [rng.randrange(2, vocab) for _ in range(length - 1)]
    position = rng.randrange(length)
    ids.insert(position, rng.choice(ids))
    return ids


@oracle("gradient_rows")
def gradient_rows(seed: int, length: int, V: int) -> int:
    """Only rows that were looked up get gradient: the number of distinct ids."""
    return len(set(_seeded_ids(seed, length, V)))


@oracle("gradient_accumulated")
def gradient_accumulated(seed: int, length: int, V: int, g: float) -> float:
    """Each occurrence of the repeated id adds g to its row: g times its count."""
    ids = _seeded_ids(seed, length, V)
    counts = {v: ids.count(v) for v in ids}
    most = max(counts.values())
    return g * most


# ---- LM head and tying ---------------------------------------------------------------------

@oracle("logits_shape")
def logits_shape(B: int, S: int, V: int, D: int) -> list[int]:
    """[B, S, D] @ [D, V]: one score per vocabulary entry at every position."""
    return [B, S, V]


@oracle("tying_saved")
def tying_saved(V: int, D: int) -> int:
    """Tying removes one of the two [V, D] matrices."""
    return V * D


@oracle("untied_parameters")
def untied_parameters(V: int, D: int) -> int:
    """Two separate [V, D] matrices, no bias."""
    return 2 * V * D


@oracle("logit_value")
def logit_value(seed: int, v: int) -> float:
    """The dot product of h with row v of W (h: 3 integers in [-3, 3]; W: 4 rows of 3 in [-2, 2])."""
    rng = random.Random(seed)
    h = [rng.randint(-3, 3) for _ in range(3)]
    W = [[rng.randint(-2, 2) for _ in range(3)] for _ in range(4)]
    return float(sum(h[k] * W[v][k] for k in range(3)))


# ---- sinusoidal positions ------------------------------------------------------------------

@oracle("sinusoidal_value")
def sinusoidal_value(pos: int, dim: int, d_model: int) -> float:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), PE[pos, 2i+1] = cos(the same angle)."""
    i = dim // 2
    angle = pos / BASE ** (2 * i / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


@oracle("sinusoidal_wavelength")
def sinusoidal_wavelength(i: int, d_model: int) -> float:
    """Pair i turns by omega_i = 10000^(-2i/d_model) per position: wavelength 2*pi / omega_i."""
    return 2 * math.pi * BASE ** (2 * i / d_model)


@oracle("added_shape")
def added_shape(B: int, S: int, D: int) -> list[int]:
    """[B, S, D] + [S, D] broadcasts to [B, S, D]."""
    return [B, S, D]


# ---- learned and relative positions --------------------------------------------------------

@oracle("learned_table_parameters")
def learned_table_parameters(max_seq_len: int, D: int) -> int:
    """One trainable row of D numbers per position."""
    return max_seq_len * D


@oracle("relative_offset")
def relative_offset(S: int, i: int, j: int) -> int:
    """Key j stands at j - i relative to query i."""
    return j - i


@oracle("relative_distinct")
def relative_distinct(S: int) -> int:
    """Offsets run from -(S-1) to S-1."""
    return 2 * S - 1


# ---- RoPE and ALiBi ------------------------------------------------------------------------

def _rope_angle(p: int, i: int, d: int) -> float:
    return p * BASE ** (-2 * i / d)


@oracle("rope_angle")
def rope_angle(p: int, i: int, d: int) -> float:
    """a = p * base^(-2i/d), not folded into (-pi, pi]."""
    return _rope_angle(p, i, d)


@oracle("rope_rotated_first")
def rope_rotated_first(p: int, i: int, d: int, x0: int, x1: int) -> float:
    """Counter-clockwise rotation by a: x0' = x0 cos a - x1 sin a."""
    a = _rope_angle(p, i, d)
    return x0 * math.cos(a) - x1 * math.sin(a)


@oracle("rope_shape")
def rope_shape(B: int, H: int, S: int, d: int) -> list[int]:
    """A rotation keeps the shape."""
    return [B, H, S, d]


def alibi_head_slope(h: int, H: int) -> float:
    """Slope of head h (from 1) of H by the paper's rule: n = the largest power of two <= H;
    heads 1..n get 2^(-8h/n); head n+k (k = 1, 2, ...) gets slope 2k-1 of 2n heads,
    2^(-8(2k-1)/(2n))."""
    n = 1
    while n * 2 <= H:
        n *= 2
    if h <= n:
        return 2.0 ** (-8.0 * h / n)
    k = h - n
    return 2.0 ** (-8.0 * (2 * k - 1) / (2 * n))


@oracle("alibi_slope")
def alibi_slope(h: int, H: int) -> float:
    return alibi_head_slope(h, H)


@oracle("alibi_bias_value")
def alibi_bias_value(h: int, H: int, i: int, j: int) -> float:
    """bias = -slope_h * |i - j|."""
    return -alibi_head_slope(h, H) * abs(i - j)

# ---- subwords and the training objective ---------------------------------------------------

@oracle("bpe_run_merge_length")
def bpe_run_merge_length(n: int) -> int:
    """n equal tokens merged left to right in non-overlapping pairs: n // 2 pairs, plus one left over if n is odd."""
    return n // 2 + n % 2


@oracle("causal_allowed_count")
def causal_allowed_count(S: int) -> int:
    """Query i sees keys 0..i, i.e. i + 1 of them: 1 + 2 + ... + S."""
    return S * (S + 1) // 2


@oracle("loss_target_count")
def loss_target_count(S: int, L1: int, L2: int) -> int:
    """A sequence of L real tokens has L - 1 next-token targets; the padding adds none."""
    return (L1 - 1) + (L2 - 1)


# ---- RoPE in practice ----------------------------------------------------------------------

@oracle("ntk_scaled_base")
def ntk_scaled_base(base: int, scale: int, d: int) -> float:
    """base' = base * scale^(d / (d - 2))."""
    return base * scale ** (d / (d - 2))


@oracle("ntk_pair_slowdown")
def ntk_pair_slowdown(scale: int, d: int, i: int) -> float:
    """theta_i = base^(-2i/d); with base' = base * scale^(d/(d-2)) it shrinks by scale^(2i/(d-2))."""
    return scale ** (2 * i / (d - 2))


@oracle("rope_wavelength")
def rope_wavelength(base: int, i: int, d: int) -> float:
    """One full turn of pair i takes 2*pi / theta_i = 2*pi * base^(2i/d) positions."""
    return 2 * math.pi * base ** (2 * i / d)


# ---- capstone: a tiny language model -------------------------------------------------------

@oracle("uniform_loss")
def uniform_loss(V: int, S: int) -> float:
    """Equal logits give every token probability 1/V, so every target costs -ln(1/V) = ln V."""
    return math.log(V)


@oracle("tinylm_parameters")
def tinylm_parameters(V: int, D: int, position: str) -> int:
    """Tied table V*D; q/k/v projection 3*D*D plus its bias 3*D; output projection D*D;
    two LayerNorms 2*(D + D); plus a 64 x D table for learned positions (the other methods
    have no parameters)."""
    return V * D + 4 * D * D + 3 * D + 4 * D + (64 * D if position == "learned" else 0)


@oracle("tinylm_logits_shape")
def tinylm_logits_shape(B: int, S: int, V: int) -> list[int]:
    """One score per vocabulary token at every position of every sequence."""
    return [B, S, V]
