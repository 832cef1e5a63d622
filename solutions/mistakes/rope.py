"""Typical mistakes in rope.py: apply_rope."""
from __future__ import annotations

import torch

from grader.contract import mistake


@mistake(target="apply_rope", id="rope-half-split", hint={
    "en": "You paired feature i with feature i + d/2 (the \"rotate half\" layout of GPT-NeoX). This exercise "
          "uses interleaved pairs, as in RoFormer and llama: pair i is (x[2i], x[2i+1]).",
    "zh": "你把第 i 个特征和第 i + d/2 个特征配成一对（GPT-NeoX 的“旋转一半”布局）。本练习使用交错配对，"
          "与 RoFormer 和 llama 一致：第 i 对是 (x[2i], x[2i+1])。"})
def apply_rope(x, positions=None, base=10000.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len)
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x0, x1 = x[..., : dim // 2], x[..., dim // 2:]
    return torch.cat((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1)


@mistake(target="apply_rope", id="rope-clockwise", hint={
    "en": "The pairs were rotated clockwise (by -a). Rotate counter-clockwise, i.e. multiply (x0 + i x1) "
          "by e^(ia): the first output uses minus sin, the second plus sin.",
    "zh": "你把每一对顺时针旋转了（转了 -a）。应逆时针旋转，即 (x0 + i x1) 乘以 e^(ia)：第一个输出用负的 sin，第二个用正的 sin。"})
def apply_rope(x, positions=None, base=10000.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len)
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos + x1 * sin, -x0 * sin + x1 * cos), dim=-1).flatten(-2)


@mistake(target="apply_rope", id="rope-ignores-positions", hint={
    "en": "The `positions` argument was ignored: you always rotated by 0, 1, ..., S-1. Use the given "
          "positions when they are passed (they may skip numbers or repeat), and arange(S) only by default.",
    "zh": "你忽略了参数 `positions`：总是按 0, 1, …, S-1 旋转。传入 positions 时要使用它们（可能跳跃或重复），只有默认时才用 arange(S)。"})
def apply_rope(x, positions=None, base=10000.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    positions = torch.arange(seq_len)
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


@mistake(target="apply_rope", id="rope-exponent-i-over-d", hint={
    "en": "The frequency of pair i used base^(-i/d). It is base^(-2i/d): the d/2 pairs must span "
          "exponents from 0 to almost -1.",
    "zh": "第 i 对的频率用了 base^(-i/d)。应为 base^(-2i/d)：d/2 个配对的指数应从 0 一直到接近 -1。"})
def apply_rope(x, positions=None, base=10000.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len)
    inv_freq = base ** (-torch.arange(dim // 2, dtype=torch.float32) / dim)
    angle = positions.float()[:, None] * inv_freq[None, :]
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)


@mistake(target="ntk_base", id="ntk-base-times-scale", hint={
    "en": "You multiplied the base by the scale itself. NTK-aware scaling raises the scale to d/(d-2): "
          "base * scale ** (d / (d - 2)), so that the slowest pair turns exactly `scale` times slower.",
    "zh": "你直接把 base 乘以 scale。NTK-aware 缩放要把 scale 取 d/(d-2) 次幂：base * scale ** (d / (d - 2))，"
          "这样最慢的那一对恰好慢 `scale` 倍。"})
def ntk_base(base, scale, head_dim):
    if scale < 1:
        raise ValueError(f"scale must be at least 1, got {scale}")
    if head_dim % 2 != 0 or head_dim < 4:
        raise ValueError(f"head_dim must be even and at least 4, got {head_dim}")
    return float(base * scale)


@mistake(target="ntk_base", id="ntk-exponent-inverted", hint={
    "en": "The exponent is upside down: (d - 2) / d instead of d / (d - 2). The new base must grow a little "
          "faster than the scale, because pair i = d/2 - 1 sees only base^((d-2)/d).",
    "zh": "指数写反了：用了 (d - 2) / d 而不是 d / (d - 2)。新的 base 要比 scale 增长得略快，"
          "因为第 i = d/2 - 1 对只感受到 base^((d-2)/d)。"})
def ntk_base(base, scale, head_dim):
    if scale < 1:
        raise ValueError(f"scale must be at least 1, got {scale}")
    if head_dim % 2 != 0 or head_dim < 4:
        raise ValueError(f"head_dim must be even and at least 4, got {head_dim}")
    return float(base * scale ** ((head_dim - 2) / head_dim))


@mistake(target="ntk_base", id="ntk-divides-base", hint={
    "en": "You divided the base by the scale, which makes every pair turn FASTER. A longer context needs "
          "slower rotations, so the base grows: base * scale ** (d / (d - 2)).",
    "zh": "你把 base 除以了 scale，这会让每一对都转得更快。更长的上下文需要更慢的旋转，所以 base 应当变大："
          "base * scale ** (d / (d - 2))。"})
def ntk_base(base, scale, head_dim):
    if scale < 1:
        raise ValueError(f"scale must be at least 1, got {scale}")
    if head_dim % 2 != 0 or head_dim < 4:
        raise ValueError(f"head_dim must be even and at least 4, got {head_dim}")
    return float(base / scale ** (head_dim / (head_dim - 2)))


@mistake(target="ntk_base", id="ntk-no-validation", hint={
    "en": "Invalid arguments were accepted. Raise ValueError when scale < 1 (that would shrink the context), "
          "when head_dim is odd (RoPE needs pairs) or below 4 (d - 2 would be 0 for d = 2).",
    "zh": "你接受了无效的参数。scale < 1（会缩短上下文）、head_dim 为奇数（RoPE 需要成对的特征）或小于 4"
          "（d = 2 时 d - 2 为 0）时，都应抛出 ValueError。"})
def ntk_base(base, scale, head_dim):
    return float(base * scale ** (head_dim / max(head_dim - 2, 1)))
