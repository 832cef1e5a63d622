"""ALiBi: attention with linear biases instead of position embeddings."""
from __future__ import annotations

import math

import torch


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """The per-head slopes of ALiBi (Press et al., 2022).

    Args:
        n_heads: H >= 1.

    Returns:
        float32 tensor of shape [H]. For H a power of two, slope_h = 2^(-8(h+1)/H) for h = 0..H-1
        (a geometric sequence starting at and with ratio 2^(-8/H)). Otherwise the paper's rule:
        take n, the largest power of two below H, use the n slopes of n heads, then append
        every other slope (the 1st, 3rd, 5th, ...) of 2n heads until there are H slopes.

    Raises:
        ValueError: n_heads < 1.
    """
    # BEGIN SOLUTION
    if n_heads < 1:
        raise ValueError(f"n_heads must be at least 1, got {n_heads}")

    def power_of_two_slopes(n: int) -> list[float]:
        return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]

    n = 2 ** math.floor(math.log2(n_heads))  # largest power of two <= H
    slopes = power_of_two_slopes(n) + power_of_two_slopes(2 * n)[0::2][: n_heads - n]
    return torch.tensor(slopes, dtype=torch.float32)
    # END SOLUTION


def alibi_bias(n_heads: int, seq_len: int) -> torch.Tensor:
    """The ALiBi bias added to the attention scores of every head.

    Args:
        n_heads: H >= 1.
        seq_len: S, the number of queries and keys.

    Returns:
        float32 tensor of shape [H, S, S] with bias[h, i, j] = -slope_h * |i - j|, slope_h from
        alibi_slopes(H): 0 on the diagonal, more negative the further key j is from query i.
        On and below the diagonal (j <= i) this equals the paper's causal bias -slope_h * (i - j).
        Some implementations add slope_h * j instead, which differs from it on each row i by the
        constant slope_h * i; softmax over a row ignores such a constant. The upper triangle (j > i)
        is what a causal mask removes.

    Raises:
        ValueError: n_heads < 1.
    """
    # BEGIN SOLUTION
    slopes = alibi_slopes(n_heads)                                  # [H]
    position = torch.arange(seq_len)
    distance = (position[None, :] - position[:, None]).abs()        # [S, S]: |i - j|
    return slopes[:, None, None] * (-distance).to(torch.float32)    # [H, 1, 1] * [S, S] -> [H, S, S]
    # END SOLUTION
