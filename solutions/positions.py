"""Absolute and relative positions: sinusoidal encodings, a learned table, relative offsets."""
from __future__ import annotations

import torch
import torch.nn as nn


def sinusoidal_encoding(seq_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The fixed sinusoidal position encodings of "Attention Is All You Need".

    Args:
        seq_len: S, the number of positions (0..S-1).
        d_model: D, the encoding size; must be even (sin/cos come in pairs).
        base: the wavelength base (10000 in the paper).

    Returns:
        float32 tensor of shape [S, D] with, for pair i in 0..D/2-1,
        PE[p, 2i] = sin(p / base^(2i/D)) and PE[p, 2i+1] = cos(p / base^(2i/D)),
        sines and cosines interleaved (not all sines first).

    Raises:
        ValueError: d_model is odd.
    """
    # BEGIN SOLUTION
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even for sinusoidal encodings, got {d_model}")
    position = torch.arange(seq_len, dtype=torch.float64)[:, None]           # [S, 1]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)                 # [D/2]: 0, 2, 4, ...
    angle = position / base ** (two_i / d_model)                             # [S, D/2]
    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)                  # [S, D]
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.to(torch.float32)
    # END SOLUTION


class LearnedPositionalEmbedding(nn.Module):
    """A trainable position table added to the input, as in GPT-2.

    Attributes:
        position_embedding: nn.Embedding(max_seq_len, d_model), row p is position p's vector.
        max_seq_len: the number of rows, the longest sequence this module accepts.

    forward(x): x of shape [B, S, D] -> x + position_embedding rows 0..S-1 (broadcast over B),
    shape [B, S, D]. Raises ValueError, naming S and max_seq_len, when S > max_seq_len.
    """

    def __init__(self, max_seq_len: int, d_model: int):
        super().__init__()
        # BEGIN SOLUTION
        self.max_seq_len = max_seq_len
        self.position_embedding = nn.Embedding(max_seq_len, d_model)
        # END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        seq_len = x.shape[1]
        if seq_len > self.max_seq_len:
            raise ValueError(f"sequence length {seq_len} is longer than max_seq_len {self.max_seq_len}")
        positions = torch.arange(seq_len)                 # [S]: 0, 1, ..., S-1
        return x + self.position_embedding(positions)     # [B, S, D] + [S, D]
        # END SOLUTION


def relative_positions(seq_len: int) -> torch.Tensor:
    """The offset of every key from every query.

    Args:
        seq_len: S.

    Returns:
        torch.long tensor of shape [S, S] with out[i, j] = j - i: where key j stands relative
        to query i (negative for earlier keys, 0 on the diagonal, positive for later keys).
    """
    # BEGIN SOLUTION
    position = torch.arange(seq_len)          # [S]
    return position[None, :] - position[:, None]  # [S, S]: [i, j] = j - i
    # END SOLUTION
