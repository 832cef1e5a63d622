"""Rotary position embedding (RoPE), applied to queries and keys."""
from __future__ import annotations

import torch


def apply_rope(x: torch.Tensor, positions: torch.Tensor | None = None, base: float = 10000.0) -> torch.Tensor:
    """Rotate each pair of features of x by an angle proportional to its position.

    Args:
        x: queries or keys, shape [B, H, S, d] with d even (never the values).
        positions: 1-D integer tensor of shape [S], the position of each of the S vectors
            (any values, repeats allowed); default torch.arange(S).
        base: the frequency base (10000 in RoFormer).

    Returns:
        Tensor of x's shape and dtype. Pairs are interleaved: pair i is (x[..., 2i], x[..., 2i+1]).
        At position p, pair i is rotated counter-clockwise by the angle a = p * base^(-2i/d):
            out[..., 2i]   = x[..., 2i] * cos(a) - x[..., 2i+1] * sin(a)
            out[..., 2i+1] = x[..., 2i] * sin(a) + x[..., 2i+1] * cos(a)
        which is the complex product (x0 + i x1) * e^(ia), as in RoFormer and Meta's llama.

    Raises:
        ValueError: d is odd, or positions is not a 1-D tensor of length S.
    """
    # BEGIN SOLUTION
    seq_len, dim = x.shape[-2], x.shape[-1]
    if dim % 2 != 0:
        raise ValueError(f"the last dimension of x must be even for RoPE, got {dim}")
    if positions is None:
        positions = torch.arange(seq_len)
    if positions.dim() != 1 or positions.shape[0] != seq_len:
        raise ValueError(f"positions must have shape [{seq_len}], got {list(positions.shape)}")
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # [d/2]
    angle = positions.to(torch.float64)[:, None] * inv_freq[None, :]          # [S, d/2]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)               # [S, d/2]
    x0, x1 = x[..., 0::2], x[..., 1::2]                                       # [B, H, S, d/2] each
    out0 = x0 * cos - x1 * sin
    out1 = x0 * sin + x1 * cos
    return torch.stack((out0, out1), dim=-1).flatten(-2)                      # interleave back: [B, H, S, d]
    # END SOLUTION


def ntk_base(base: float, scale: float, head_dim: int) -> float:
    """The NTK-aware RoPE base for a context `scale` times longer than in training.

    Args:
        base: the base the model was trained with (10000.0 for RoFormer and Llama 2).
        scale: how many times longer the new context is (1 keeps the base).
        head_dim: d, the (even) size of each head's queries and keys.

    Returns:
        base * scale ** (d / (d - 2)), as a float. The fastest pair (i = 0) keeps its
        frequency; the slowest pair (i = d/2 - 1) turns exactly `scale` times slower, as
        position interpolation would make it.

    Raises:
        ValueError: scale < 1, head_dim is odd, or head_dim < 4.
    """
    # BEGIN SOLUTION
    if scale < 1:
        raise ValueError(f"scale must be at least 1 (a longer context), got {scale}")
    if head_dim % 2 != 0 or head_dim < 4:
        raise ValueError(f"head_dim must be even and at least 4, got {head_dim}")
    return float(base * scale ** (head_dim / (head_dim - 2)))
    # END SOLUTION
