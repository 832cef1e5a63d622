"""Typical mistakes in capstone.py: TinyLM."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from solutions.mistakes import mistake


@mistake(target="TinyLM", id="tinylm-head-copies-embedding", hint={
    "en": "The LM head got a COPY of the embedding weight (a second Parameter), so the two drift apart as soon "
          "as one is trained. Assign the embedding's Parameter itself: self.lm_head.weight = "
          "self.token_embedding.weight.",
    "zh": "LM head 拿到的是嵌入权重的副本（第二个 Parameter），"
          "一旦训练两者就会分开。应直接赋值同一个 Parameter："
          "self.lm_head.weight = self.token_embedding.weight。"})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = nn.Parameter(self.token_embedding.weight.detach().clone())
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        pos = torch.arange(max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position == "sinusoidal":
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding.weight[:S]
        if self.position == "sinusoidal":
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
        if self.position == "rope":
            cos, sin = self.cos[:S], self.sin[:S]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-no-causal-mask", hint={
    "en": "Attention has no causal mask, so the logits at position t change when later tokens change: in "
          "training the model would read the very token it must predict. Set the scores of keys j > i to -inf "
          "before the softmax.",
    "zh": "注意力没有因果掩码，于是位置 t 的 logits 会随后面的 token 改变："
          "训练时模型会直接读到它要预测的那个 token。"
          "应在 softmax 之前把 j > i 的 key 的分数设为 -inf。"})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        pos = torch.arange(max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position == "sinusoidal":
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding.weight[:S]
        if self.position == "sinusoidal":
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
        if self.position == "rope":
            cos, sin = self.cos[:S], self.sin[:S]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-mask-hides-the-past", hint={
    "en": "The mask is the wrong triangle: each query sees itself and the FUTURE (keys j >= i). A decoder's "
          "query i may attend keys j <= i: keep the lower triangle, diagonal included.",
    "zh": "掩码用错了三角：每个 query 看到的是自己和未来（j >= i 的 key）。"
          "解码器中 query i 只能关注 j <= i 的 key：应保留包含对角线的下三角。"})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        pos = torch.arange(max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position == "sinusoidal":
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding.weight[:S]
        if self.position == "sinusoidal":
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
        if self.position == "rope":
            cos, sin = self.cos[:S], self.sin[:S]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).triu()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-position-ignored", hint={
    "en": "The `position` argument is accepted but never used in forward, so the model cannot tell the order of"
          " the tokens before the last one, whatever method was chosen. Apply the chosen method: add the "
          "sinusoidal or learned vectors to x, rotate q and k for rope, add the ALiBi bias to the scores.",
    "zh": "参数 `position` 被接收了，但 forward 中从未使用，"
          "所以无论选哪种方法，模型都分不清最后一个 token 之前各 token 的顺序。"
          "应真正使用所选方法：把正弦或可学习的向量加到 x 上，"
          "rope 旋转 q 和 k，ALiBi 把偏置加到分数上。"})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        pos = torch.arange(max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position == "sinusoidal":
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)
        if False:
            x = x + self.position_embedding.weight[:S]
        if False:
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
        if False:
            cos, sin = self.cos[:S], self.sin[:S]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if False:
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-positions-for-none", hint={
    "en": "With position=\"none\" the model still added position vectors, so it is not order-blind as it should "
          "be. \"none\" means no position information at all: add nothing to x and leave q, k and the scores "
          "alone.",
    "zh": 'position="none" 时模型仍然加上了位置向量，'
          '因此它并不像应有的那样对顺序不敏感。"none" 表示完全没有位置信息：'
          "不要给 x 加任何东西，也不要改动 q、k 和分数。"})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        pos = torch.arange(max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position in ("sinusoidal", "none"):
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding.weight[:S]
        if self.position in ("sinusoidal", "none"):
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))
        if self.position == "rope":
            cos, sin = self.cos[:S], self.sin[:S]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))
