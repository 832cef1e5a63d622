"""Single-head scaled dot-product self-attention, with no mask and no positions."""
from __future__ import annotations

import math

import torch


def self_attention(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor) -> torch.Tensor:
    """One attention head over a batch of sequences.

    Args:
        x: input vectors, shape [B, S, D].
        w_q, w_k, w_v: projection matrices, each [D, D], applied on the right:
            q = x @ w_q, k = x @ w_k, v = x @ w_v (not the nn.Linear layout, which is x @ W.T).

    Returns:
        Tensor of shape [B, S, D] and x's dtype:
        softmax(q @ k^T / sqrt(D)) @ v, the softmax taken over the keys (the last dimension
        of the [B, S, S] score matrix), so each query's weights sum to 1. No causal mask.
    """
    # BEGIN SOLUTION
    d_model = x.shape[-1]
    q, k, v = x @ w_q, x @ w_k, x @ w_v                    # each [B, S, D]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model)  # [B, S, S]: query i, key j
    weights = torch.softmax(scores, dim=-1)                # over keys j
    return weights @ v                                     # [B, S, D]
    # END SOLUTION


def causal_mask(seq_len: int) -> torch.Tensor:
    """Which keys each query may attend to in a decoder: itself and the tokens before it.

    Args:
        seq_len: S, the number of positions (0 gives an empty mask).

    Returns:
        BoolTensor of shape [S, S]: mask[i, j] is True where query i may attend key j,
        i.e. j <= i (the lower triangle, diagonal included). Masked scores are set to -inf
        before the softmax: scores.masked_fill(~mask, float("-inf")).

    Raises:
        ValueError: seq_len is negative.
    """
    # BEGIN SOLUTION
    if seq_len < 0:
        raise ValueError(f"seq_len must be at least 0, got {seq_len}")
    position = torch.arange(seq_len)              # [S]
    return position[None, :] <= position[:, None]  # [S, S]: key j <= query i
    # END SOLUTION
