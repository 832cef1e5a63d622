"""Typical mistakes in attention.py: self_attention."""
from __future__ import annotations

import math

import torch

from solutions.mistakes import mistake


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
