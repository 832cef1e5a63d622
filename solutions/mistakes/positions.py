"""Typical mistakes in positions.py: sinusoidal_encoding, LearnedPositionalEmbedding, relative_positions."""
from __future__ import annotations

import torch
import torch.nn as nn

from grader.contract import mistake


@mistake(target="sinusoidal_encoding", id="sinusoid-sin-cos-swapped", hint={
    "en": "Sine and cosine are swapped: even columns (2i) hold the sine, odd columns (2i+1) the cosine, "
          "so position 0 starts as 0, 1, 0, 1, ...",
    "zh": "正弦和余弦放反了：偶数列（2i）是正弦，奇数列（2i+1）是余弦，所以位置 0 是 0, 1, 0, 1, ……"})
def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    position = torch.arange(seq_len, dtype=torch.float32)[:, None]
    angle = position / base ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(seq_len, d_model)
    pe[:, 0::2] = torch.cos(angle)
    pe[:, 1::2] = torch.sin(angle)
    return pe


@mistake(target="sinusoidal_encoding", id="sinusoid-exponent-i-over-d", hint={
    "en": "The exponent used the pair index i over D. It is 2i/D: with D/2 pairs, the exponent must "
          "reach almost 1 so that the wavelengths spread from 2*pi up to base*2*pi.",
    "zh": "指数用了配对序号 i 除以 D。应为 2i/D：共有 D/2 对，指数要接近 1，波长才能从 2π 铺开到 base·2π。"})
def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    position = torch.arange(seq_len, dtype=torch.float32)[:, None]
    angle = position / base ** (torch.arange(d_model // 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(seq_len, d_model)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


@mistake(target="sinusoidal_encoding", id="sinusoid-sines-then-cosines", hint={
    "en": "All sines came first and all cosines after them. The sine and cosine of the same frequency "
          "sit side by side: columns 2i and 2i+1.",
    "zh": "你把所有正弦放在前面、所有余弦放在后面。同一频率的正弦和余弦应相邻：第 2i 列和第 2i+1 列。"})
def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    position = torch.arange(seq_len, dtype=torch.float32)[:, None]
    angle = position / base ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=-1)


@mistake(target="sinusoidal_encoding", id="sinusoid-column-exponent", hint={
    "en": "Each column got its own exponent (j/D for column j), so a cosine's frequency differs from its "
          "sine's. Both columns 2i and 2i+1 use the same angle p / base^(2i/D).",
    "zh": "你给每一列用了各自的指数（第 j 列用 j/D），于是余弦的频率与对应正弦不同。第 2i 列和第 2i+1 列应使用同一个角度 p / base^(2i/D)。"})
def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    position = torch.arange(seq_len, dtype=torch.float32)[:, None]
    angle = position / base ** (torch.arange(d_model, dtype=torch.float32) / d_model)
    pe = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, 1::2])
    return pe


@mistake(target="sinusoidal_encoding", id="sinusoid-returns-float64", hint={
    "en": "The table came back as float64. Computing in float64 is fine, but return float32, the dtype "
          "the model adds it to.",
    "zh": "返回的表是 float64。用 float64 计算没问题，但请返回 float32，也就是模型里与之相加的数据类型。"})
def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    position = torch.arange(seq_len, dtype=torch.float64)[:, None]
    angle = position / base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


@mistake(target="LearnedPositionalEmbedding", id="learned-no-length-check", hint={
    "en": "A sequence longer than max_seq_len was not refused. Check S against max_seq_len first and raise "
          "a ValueError that names both numbers, instead of letting the lookup fail with an index error.",
    "zh": "比 max_seq_len 更长的序列没有被拒绝。请先比较 S 和 max_seq_len，并抛出写明这两个数的 ValueError，而不是让查表因索引越界而失败。"})
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_seq_len, d_model):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.position_embedding = nn.Embedding(max_seq_len, d_model)

    def forward(self, x):
        return x + self.position_embedding(torch.arange(x.shape[1]))


@mistake(target="LearnedPositionalEmbedding", id="learned-rows-from-one", hint={
    "en": "The rows used were 1..S, as if positions started at 1. The first position is 0: add rows 0..S-1.",
    "zh": "你用的是第 1..S 行，好像位置从 1 开始。第一个位置是 0：应加上第 0..S-1 行。"})
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_seq_len, d_model):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.position_embedding = nn.Embedding(max_seq_len, d_model)

    def forward(self, x):
        if x.shape[1] > self.max_seq_len:
            raise ValueError(f"sequence length {x.shape[1]} > max_seq_len {self.max_seq_len}")
        return x + self.position_embedding(torch.arange(1, x.shape[1] + 1))


@mistake(target="LearnedPositionalEmbedding", id="learned-positions-from-batch-axis", hint={
    "en": "The positions were counted along the batch axis (x.shape[0]). Positions run along the sequence "
          "axis: x is [B, S, D], so use S = x.shape[1].",
    "zh": "你沿着批次维（x.shape[0]）计数位置。位置沿序列维排列：x 的形状是 [B, S, D]，应使用 S = x.shape[1]。"})
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_seq_len, d_model):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.position_embedding = nn.Embedding(max_seq_len, d_model)

    def forward(self, x):
        if x.shape[0] > self.max_seq_len:
            raise ValueError(f"sequence length {x.shape[0]} > max_seq_len {self.max_seq_len}")
        return x + self.position_embedding(torch.arange(x.shape[0]))[:, None, :]


@mistake(target="relative_positions", id="relative-i-minus-j", hint={
    "en": "The sign is reversed: entry [i, j] is j - i, where key j stands seen from query i "
          "(a key one step back is -1).",
    "zh": "符号反了：[i, j] 处应为 j - i，即从 query i 看 key j 的位置（往回一步的 key 是 -1）。"})
def relative_positions(seq_len):
    position = torch.arange(seq_len)
    return position[:, None] - position[None, :]


@mistake(target="relative_positions", id="relative-absolute-distance", hint={
    "en": "You returned the distance |j - i|, which loses the direction. Keep the sign: keys before the "
          "query are negative, keys after it positive.",
    "zh": "你返回的是距离 |j - i|，丢掉了方向。请保留符号：query 之前的 key 为负，之后的 key 为正。"})
def relative_positions(seq_len):
    position = torch.arange(seq_len)
    return (position[None, :] - position[:, None]).abs()


@mistake(target="relative_positions", id="relative-float-dtype", hint={
    "en": "The offsets came back as floats. Offsets are whole numbers used as indices: return a torch.long tensor.",
    "zh": "返回的偏移量是浮点数。偏移量是用作索引的整数：请返回 torch.long 张量。"})
def relative_positions(seq_len):
    position = torch.arange(seq_len, dtype=torch.float32)
    return position[None, :] - position[:, None]
