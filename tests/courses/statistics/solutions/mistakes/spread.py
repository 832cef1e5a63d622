"""Typical mistakes in spread.py."""
from __future__ import annotations

from grader.contract import mistake


@mistake(target="variance", id="variance-ignores-ddof", hint={
    "en": "You divided by n whatever ddof is; the divisor is n - ddof, so the sample variance "
          "(ddof=1) divides the sum of squared deviations by n - 1.",
    "zh": "无论 ddof 是多少，你都除以了 n；除数应为 n - ddof，所以样本方差（ddof=1）"
          "要把离差平方和除以 n - 1。"})
def variance(x, ddof=0):
    deviations = x - x.mean(dim=-1, keepdim=True)
    return (deviations**2).mean(dim=-1)
