"""Typical mistakes in vectors.py."""
from __future__ import annotations

from grader.contract import mistake


@mistake(target="dot", id="dot-no-sum", hint={
    "en": "You returned the entry-wise products [a[i] * b[i]]; the dot product adds them up into one number.",
    "zh": "你返回的是逐项乘积 [a[i] * b[i]]；点积还要把它们相加成一个数。"})
def dot(a, b):
    return [x * y for x, y in zip(a, b)]
