"""Measures of spread: the variance of each row of measurements."""
from __future__ import annotations

import torch


def variance(x: torch.Tensor, ddof: int = 0) -> torch.Tensor:
    """The variance of `x` over its last dimension.

    The sum of squared deviations from the row's mean, divided by n - ddof: ddof=0 gives the
    population variance, ddof=1 the sample variance.

    Args:
        x: [..., n] floating tensor of measurements.
        ddof: "delta degrees of freedom", subtracted from n in the divisor.

    Returns:
        [...] tensor, in x's dtype.

    Raises:
        ValueError: when n - ddof <= 0 (nothing to divide by).
    """
    # BEGIN SOLUTION
    n = x.shape[-1]
    if n - ddof <= 0:
        raise ValueError(f"variance needs more than ddof={ddof} values per row, got {n}")
    deviations = x - x.mean(dim=-1, keepdim=True)  # [..., n]
    return (deviations**2).sum(dim=-1) / (n - ddof)  # [...]
    # END SOLUTION
