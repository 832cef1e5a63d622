"""The exercise registry: the one piece of data that the build (coursegen) and the
grader both read. It names every graded function or class, the module it belongs to,
and whether it is a function or an nn.Module class. It has no dependencies, so it can
ship in a student starter repository.

Points live with the checks (grader/checks), task statements with the lessons
(content/lessons/*.yaml); this file only says what exists and where.
"""
from __future__ import annotations

from grader.contract import Exercise


EXERCISES: tuple[Exercise, ...] = (
    Exercise("encode", "tokens", "function"),
    Exercise("pad_batch", "tokens", "function"),
    Exercise("embedding_lookup", "embedding", "function"),
    Exercise("one_hot_lookup", "embedding", "function"),
    Exercise("embedding_backward", "embedding", "function"),
    Exercise("lm_logits", "lm_head", "function"),
    Exercise("count_parameters", "lm_head", "function"),
    Exercise("TiedLM", "lm_head", "class"),
    Exercise("self_attention", "attention", "function"),
    Exercise("sinusoidal_encoding", "positions", "function"),
    Exercise("LearnedPositionalEmbedding", "positions", "class"),
    Exercise("relative_positions", "positions", "function"),
    Exercise("apply_rope", "rope", "function"),
    Exercise("alibi_slopes", "alibi", "function"),
    Exercise("alibi_bias", "alibi", "function"),
    Exercise("merge_pair", "tokens", "function"),
    Exercise("causal_mask", "attention", "function"),
    Exercise("next_token_loss", "lm_head", "function"),
    Exercise("ntk_base", "rope", "function"),
    Exercise("TinyLM", "capstone", "class"),
)
