"""Vectors: the dot product."""
from __future__ import annotations

import torch


def dot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The dot product of `a` and `b` over their last dimension.

    Args:
        a: [..., n] tensor.
        b: [..., n] tensor, same shape as `a`.

    Returns:
        [...] tensor: sum over i of a[..., i] * b[..., i], in a's dtype.
    """
    # BEGIN SOLUTION
    return (a * b).sum(dim=-1)  # [..., n] -> [...]
    # END SOLUTION
