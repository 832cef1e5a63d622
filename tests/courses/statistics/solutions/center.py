"""Measures of center: the mean and the median of each row of measurements."""
from __future__ import annotations

import torch


def mean(x: torch.Tensor) -> torch.Tensor:
    """The arithmetic mean of `x` over its last dimension.

    Args:
        x: [..., n] floating tensor of measurements, n >= 1.

    Returns:
        [...] tensor: (x[..., 0] + ... + x[..., n - 1]) / n, in x's dtype.
    """
    # BEGIN SOLUTION
    return x.sum(dim=-1) / x.shape[-1]  # [..., n] -> [...]
    # END SOLUTION


def median(x: torch.Tensor) -> torch.Tensor:
    """The median of `x` over its last dimension.

    The middle value of the sorted row; when n is even, the mean of the two middle values.

    Args:
        x: [..., n] floating tensor of measurements, n >= 1.

    Returns:
        [...] tensor, in x's dtype.
    """
    # BEGIN SOLUTION
    ordered = torch.sort(x, dim=-1).values  # [..., n]
    n = x.shape[-1]
    lower = ordered[..., (n - 1) // 2]  # [...]; the same element as `upper` when n is odd
    upper = ordered[..., n // 2]  # [...]
    return (lower + upper) / 2
    # END SOLUTION
