"""The running integral of samples held in a numpy array."""
from __future__ import annotations

import numpy as np


def cumulative_trapezoid(y: np.ndarray, h: float) -> np.ndarray:
    """The running trapezoid integral of samples `y` spaced `h` apart.

    Args:
        y: 1-D array of m + 1 samples.
        h: the spacing of the samples.

    Returns:
        float64 array [m + 1]: entry 0 is 0, entry i is entry i - 1 plus h * (y[i - 1] + y[i]) / 2.
    """
    # BEGIN SOLUTION
    y = np.asarray(y, dtype=np.float64)
    steps = h * (y[1:] + y[:-1]) / 2          # [m]: one trapezoid per gap
    return np.concatenate(([0.0], np.cumsum(steps)))
    # END SOLUTION
