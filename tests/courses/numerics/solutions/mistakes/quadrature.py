"""Typical mistakes in quadrature.py."""
from __future__ import annotations

from grader.contract import mistake


@mistake(target="trapezoid", id="trapezoid-full-ends", hint={
    "en": "You counted f(a) and f(b) fully; each end belongs to one trapezoid only, so it counts half: "
          "h * (f(a) / 2 + f(x_1) + ... + f(x_{n-1}) + f(b) / 2).",
    "zh": "你把 f(a) 和 f(b) 各算了一次；每个端点只属于一个梯形，所以只算一半："
          "h * (f(a) / 2 + f(x_1) + ... + f(x_{n-1}) + f(b) / 2)。"})
def trapezoid(f, a, b, n):
    h = (b - a) / n
    return h * sum(f(a + i * h) for i in range(n + 1))
