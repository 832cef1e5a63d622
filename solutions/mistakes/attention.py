"""Typical mistakes in attention.py: self_attention."""
from __future__ import annotations

import math

import torch

from grader.contract import mistake


@mistake(target="self_attention", id="attention-no-scale", hint={
    "en": "The scores were not scaled. Divide q k^T by sqrt(D) before the softmax; otherwise large "
          "dot products push the softmax towards one-hot weights.",
    "zh": "分数没有缩放。在 softmax 之前要把 q k^T 除以 sqrt(D)；否则点积过大，softmax 会接近 one-hot。"})
def self_attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


@mistake(target="self_attention", id="attention-scale-by-d", hint={
    "en": "The scores were divided by D. The scale is the square root of D, which keeps the variance "
          "of q.k near 1.",
    "zh": "你把分数除以了 D。缩放因子是 D 的平方根，这样 q·k 的方差才保持在 1 左右。"})
def self_attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    return torch.softmax(q @ k.transpose(-2, -1) / x.shape[-1], dim=-1) @ v


@mistake(target="self_attention", id="attention-softmax-over-queries", hint={
    "en": "The softmax ran over the queries (dim -2). Each query's weights over the keys must sum to 1: "
          "take the softmax over the last dimension of the [B, S, S] scores.",
    "zh": "你在 query 维（dim -2）上做了 softmax。每个 query 对所有 key 的权重之和应为 1：请在 [B, S, S] 分数的最后一维上做 softmax。"})
def self_attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(x.shape[-1]), dim=-2) @ v


@mistake(target="self_attention", id="attention-linear-layout", hint={
    "en": "The weights were applied in nn.Linear's layout (x @ W.T). Here they are applied on the right "
          "as they are: q = x @ w_q, and the same for k and v.",
    "zh": "你按 nn.Linear 的布局（x @ W.T）使用了权重。这里权重直接右乘：q = x @ w_q，k、v 同理。"})
def self_attention(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(x.shape[-1]), dim=-1) @ v


@mistake(target="causal_mask", id="causal-upper-triangle", hint={
    "en": "The mask lets each query see the FUTURE: True where j >= i (the upper triangle). A decoder's "
          "query i may attend keys j <= i, the lower triangle with the diagonal.",
    "zh": "你的掩码让每个 query 看到了未来：在 j >= i 处为 True（上三角）。解码器中 query i 只能关注 j <= i 的 key，"
          "即包含对角线的下三角。"})
def causal_mask(seq_len):
    if seq_len < 0:
        raise ValueError(f"seq_len must be at least 0, got {seq_len}")
    position = torch.arange(seq_len)
    return position[None, :] >= position[:, None]


@mistake(target="causal_mask", id="causal-no-diagonal", hint={
    "en": "The diagonal is False, so a token cannot attend to itself (and the first query sees no key at "
          "all: its softmax row is all -inf, which gives NaN). Allow j <= i, not only j < i.",
    "zh": "对角线是 False，于是 token 不能关注自己（第一个 query 甚至看不到任何 key：它那一行 softmax 全是 -inf，结果是 NaN）。"
          "应允许 j <= i，而不只是 j < i。"})
def causal_mask(seq_len):
    if seq_len < 0:
        raise ValueError(f"seq_len must be at least 0, got {seq_len}")
    position = torch.arange(seq_len)
    return position[None, :] < position[:, None]


@mistake(target="causal_mask", id="causal-float-mask", hint={
    "en": "The mask is a float tensor of 1.0 and 0.0. The contract asks for a BoolTensor (True = may attend), "
          "which masked_fill needs; compare positions (j <= i) or call .bool() on the triangle.",
    "zh": "你的掩码是由 1.0 和 0.0 组成的浮点张量。约定要求返回 BoolTensor（True 表示可以关注），masked_fill 需要它；"
          "可以直接比较位置（j <= i），或对三角矩阵调用 .bool()。"})
def causal_mask(seq_len):
    if seq_len < 0:
        raise ValueError(f"seq_len must be at least 0, got {seq_len}")
    return torch.tril(torch.ones(seq_len, seq_len))


@mistake(target="causal_mask", id="causal-negative-length-unchecked", hint={
    "en": "A negative seq_len was not rejected: torch raised its own RuntimeError. Check the argument first "
          "and raise ValueError naming the value you got.",
    "zh": "你没有拒绝负的 seq_len：torch 抛出了它自己的 RuntimeError。应先检查参数，并抛出写明所收到数值的 ValueError。"})
def causal_mask(seq_len):
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
