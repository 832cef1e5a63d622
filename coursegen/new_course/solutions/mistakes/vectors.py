"""Typical mistakes in vectors.py."""
from __future__ import annotations

from solutions.mistakes import mistake


@mistake(target="dot", id="dot-no-sum", hint={
    "en": "You returned the entry-wise products a * b; the dot product adds them up: sum over the last dimension.",
    "zh": "你返回的是逐项乘积 a * b；点积还要把它们相加：沿最后一维求和。"})
def dot(a, b):
    return a * b
