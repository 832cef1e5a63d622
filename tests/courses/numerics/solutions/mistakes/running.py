"""Typical mistakes in running.py."""
from __future__ import annotations

import numpy as np

from grader.contract import mistake


@mistake(target="cumulative_trapezoid", id="running-left-rectangles", hint={
    "en": "You added rectangles h * y[i - 1]; a trapezoid averages both ends of its gap: h * (y[i - 1] + y[i]) / 2.",
    "zh": "你累加的是矩形 h * y[i - 1]；梯形取其区间两端的平均：h * (y[i - 1] + y[i]) / 2。"})
def cumulative_trapezoid(y, h):
    y = np.asarray(y, dtype=np.float64)
    return np.concatenate(([0.0], np.cumsum(h * y[:-1])))
