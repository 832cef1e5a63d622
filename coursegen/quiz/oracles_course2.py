"""Oracles for the generated questions of the lessons on subwords and the training objective,
RoPE in practice, and the capstone tiny LM.

Each oracle is the closed form the lesson teaches, written with plain `math` (no torch, no
solutions): `verify` and tests/quiz/test_course2_oracles.py compare it with the answer
function of the same name (coursegen/quiz/generators.py), which calls the reference
solutions, over the whole parameter space of the quiz YAML.
"""
from __future__ import annotations

import math

from coursegen.quiz.oracles import oracle


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
