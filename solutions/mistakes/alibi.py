"""Typical mistakes in alibi.py: alibi_slopes and alibi_bias."""
from __future__ import annotations

import math

import torch

from grader.contract import mistake


@mistake(target="alibi_slopes", id="alibi-power-of-two-formula-everywhere", hint={
    "en": "2^(-8(h+1)/H) is the rule for H a power of two only. For other head counts, use the n slopes of "
          "n heads, n the largest power of two below H, then the 1st, 3rd, 5th, ... slopes of 2n heads.",
    "zh": "2^(-8(h+1)/H) 只适用于 H 是 2 的幂的情况。其他头数时，先用 n 个头的 n 个斜率（n 是小于 H 的最大 2 的幂），"
          "再依次取 2n 个头的第 1、3、5、……个斜率。"})
def alibi_slopes(n_heads):
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / n_heads) for h in range(n_heads)], dtype=torch.float32)


@mistake(target="alibi_slopes", id="alibi-slopes-start-at-one", hint={
    "en": "The first slope is 1 because the exponent started at h = 0. The sequence starts at 2^(-8/n), "
          "n the largest power of two <= H (n = H when H is a power of two): head h (counting from 0, "
          "h < n) gets 2^(-8(h+1)/n).",
    "zh": "第一个斜率是 1，因为指数从 h = 0 开始。序列应从 2^(-8/n) 开始，n 是不超过 H 的最大 2 的幂"
          "（H 是 2 的幂时 n = H）：第 h 个头（从 0 数，h < n）的斜率是 2^(-8(h+1)/n)。"})
def alibi_slopes(n_heads):
    n = 2 ** math.floor(math.log2(n_heads))

    def power_of_two_slopes(m):
        return [2.0 ** (-8.0 * h / m) for h in range(m)]

    slopes = power_of_two_slopes(n) + power_of_two_slopes(2 * n)[0::2][: n_heads - n]
    return torch.tensor(slopes, dtype=torch.float32)


@mistake(target="alibi_slopes", id="alibi-slopes-odd-extras", hint={
    "en": "The extra slopes were taken from the 2nd, 4th, ... slopes of 2n heads, which repeat slopes you "
          "already have. Take the 1st, 3rd, 5th, ... ones: those fall between the existing slopes.",
    "zh": "你取的是 2n 个头的第 2、4、……个斜率，它们与已有斜率重复。应取第 1、3、5、……个：它们恰好落在已有斜率之间。"})
def alibi_slopes(n_heads):
    n = 2 ** math.floor(math.log2(n_heads))

    def power_of_two_slopes(m):
        return [2.0 ** (-8.0 * (h + 1) / m) for h in range(m)]

    slopes = power_of_two_slopes(n) + power_of_two_slopes(2 * n)[1::2][: n_heads - n]
    return torch.tensor(slopes, dtype=torch.float32)


@mistake(target="alibi_slopes", id="alibi-slopes-next-power-truncated", hint={
    "en": "You took the first H slopes of the next power of two. The paper instead keeps all the slopes of "
          "the largest power of two below H and fills in with every other slope of twice that many heads.",
    "zh": "你取了下一个 2 的幂的前 H 个斜率。论文的做法是：保留小于 H 的最大 2 的幂的全部斜率，再用两倍头数的斜率中每隔一个来补足。"})
def alibi_slopes(n_heads):
    n = 2 ** math.ceil(math.log2(n_heads))
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / n) for h in range(n_heads)], dtype=torch.float32)


@mistake(target="alibi_bias", id="alibi-bias-positive", hint={
    "en": "The bias is positive, so far-away keys get MORE attention. ALiBi penalises distance: "
          "bias = -slope * |i - j|.",
    "zh": "偏置是正的，于是越远的 key 得到越多注意力。ALiBi 惩罚距离：bias = -slope * |i - j|。"})
def alibi_bias(n_heads, seq_len):
    position = torch.arange(seq_len)
    distance = (position[None, :] - position[:, None]).abs().to(torch.float32)
    n = 2 ** math.floor(math.log2(n_heads))  # the correct slopes (the paper's rule), written inline
    slopes = [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]
    slopes += [2.0 ** (-8.0 * (h + 1) / (2 * n)) for h in range(2 * n)][0::2][: n_heads - n]
    slopes = torch.tensor(slopes, dtype=torch.float32)
    return slopes[:, None, None] * distance


@mistake(target="alibi_bias", id="alibi-bias-signed-offset", hint={
    "en": "You used the signed offset (i - j) instead of the distance |i - j|: keys after the query got a "
          "positive bias. Penalise distance in both directions.",
    "zh": "你用了带符号的偏移 (i - j)，而不是距离 |i - j|：query 之后的 key 得到了正偏置。两个方向的距离都应受到惩罚。"})
def alibi_bias(n_heads, seq_len):
    position = torch.arange(seq_len)
    offset = (position[:, None] - position[None, :]).to(torch.float32)
    n = 2 ** math.floor(math.log2(n_heads))  # the correct slopes (the paper's rule), written inline
    slopes = [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]
    slopes += [2.0 ** (-8.0 * (h + 1) / (2 * n)) for h in range(2 * n)][0::2][: n_heads - n]
    slopes = torch.tensor(slopes, dtype=torch.float32)
    return -slopes[:, None, None] * offset


@mistake(target="alibi_bias", id="alibi-bias-causal-only", hint={
    "en": "Only the lower triangle (keys before the query) got a bias. This exercise asks for the "
          "symmetric bias -slope * |i - j| over the whole S x S matrix; masking is a separate step.",
    "zh": "你只给下三角（query 之前的 key）加了偏置。本练习要求对整个 S × S 矩阵使用对称偏置 -slope * |i - j|；掩码是另一个步骤。"})
def alibi_bias(n_heads, seq_len):
    position = torch.arange(seq_len)
    distance = (position[:, None] - position[None, :]).to(torch.float32).clamp(min=0)
    n = 2 ** math.floor(math.log2(n_heads))  # the correct slopes (the paper's rule), written inline
    slopes = [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]
    slopes += [2.0 ** (-8.0 * (h + 1) / (2 * n)) for h in range(2 * n)][0::2][: n_heads - n]
    slopes = torch.tensor(slopes, dtype=torch.float32)
    return -slopes[:, None, None] * distance


@mistake(target="alibi_bias", id="alibi-bias-power-of-two-slopes", hint={
    "en": "The slopes inside the bias used 2^(-8(h+1)/H) for every head count. Use the slopes of "
          "alibi_slopes: for H not a power of two they follow the paper's interleaving rule.",
    "zh": "偏置里的斜率对任何头数都用了 2^(-8(h+1)/H)。请使用 alibi_slopes 的斜率：H 不是 2 的幂时，它们遵循论文的交错规则。"})
def alibi_bias(n_heads, seq_len):
    position = torch.arange(seq_len)
    distance = (position[None, :] - position[:, None]).abs().to(torch.float32)
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / n_heads) for h in range(n_heads)], dtype=torch.float32)
    return -slopes[:, None, None] * distance
