"""Typical mistakes in capstone.py: TinyLM."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

from grader.contract import mistake


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


@mistake(target="TinyLM", id="tinylm-rope-frequencies-from-d-model", hint={
    "en": "RoPE's frequencies were computed from d_model: each head rotates its pairs by p * 10000^(-2i/d) with d the HEAD dimension (d_model / n_heads), since the rotation acts on q and k after they are split into heads. With d_model the later pairs turn far too fast.",
    "zh": 'RoPE 的频率是用 d_model 算的：旋转作用于拆分成多个头之后的 q 和 k，所以每个头按 p * 10000^(-2i/d) 旋转其各对分量，其中 d 是每个头的维度（d_model / n_heads）。用 d_model 的话，后面的分量对转得太快了。'})
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
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d_model)
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


@mistake(target="TinyLM", id="tinylm-rope-rotates-v", hint={
    "en": 'The values v were rotated too. RoPE rotates only q and k, so that the score q.k depends on the offset between the two positions; the values are the content that attention averages and must not be turned: with one token repeated, every position must give the same logits.',
    "zh": '你把 v 也旋转了。RoPE 只旋转 q 和 k，使得分数 q.k 只取决于两个位置之间的偏移；v 是注意力要加权平均的内容，不能旋转：同一个 token 重复出现时，每个位置的 logits 都应该相同。'})
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
            q, k, v = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-alibi-wrong-sign", hint={
    "en": 'The ALiBi bias has the wrong sign: +slope * |i - j| makes attention prefer the FARTHEST keys. ALiBi penalises distance: add -slope_h * |i - j| to the scores.',
    "zh": 'ALiBi 偏置的符号反了：+slope * |i - j| 会让注意力偏向最远的 key。ALiBi 惩罚距离：应把 -slope_h * |i - j| 加到分数上。'})
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
            bias = torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance
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


@mistake(target="TinyLM", id="tinylm-alibi-slopes-from-zero", hint={
    "en": "The ALiBi slopes start one step too high: slope_h = 2^(-8(h+1)/H) for heads h = 0 .. H-1 (for 4 heads: 1/4, 1/16, 1/64, 1/256), so the first head's slope is 2^(-8/H), not 2^0 = 1.",
    "zh": 'ALiBi 的斜率起点高了一步：对 h = 0 .. H-1 个头，slope_h = 2^(-8(h+1)/H)（4 个头时为 1/4、1/16、1/64、1/256），所以第一个头的斜率是 2^(-8/H)，不是 2^0 = 1。'})
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
            slopes = [2 ** (-8 * h / closest) for h in range(closest)]
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


@mistake(target="TinyLM", id="tinylm-scale-by-d-model", hint={
    "en": "The scores were divided by sqrt(d_model). Each head computes q.k over its own d = d_model / n_heads features, so scale by 1/sqrt(d) (the head dimension): dividing by sqrt(d_model) makes every head's attention too flat.",
    "zh": '你把分数除以了 sqrt(d_model)。每个头只在自己的 d = d_model / n_heads 个特征上计算 q.k，所以应乘以 1/sqrt(d)（每个头的维度）：除以 sqrt(d_model) 会让每个头的注意力都过于平均。'})
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
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-head-has-bias", hint={
    "en": "The tied LM head has a bias: nn.Linear(D, V) adds a vector of V numbers to every logit that the embedding table does not share. The head is nn.Linear(D, V, bias=False) whose weight is the embedding's.",
    "zh": '绑定的 LM head 带了偏置：nn.Linear(D, V) 会给每个 logit 加上一个长度为 V、不属于嵌入表的向量。LM head 应是 nn.Linear(D, V, bias=False)，其权重就是嵌入的权重。'})
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
        self.lm_head = nn.Linear(d_model, vocab_size)
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
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-softmax-over-queries", hint={
    "en": "The softmax runs over the queries (dim=-2) instead of the keys: each query's weights over the keys it sees must sum to 1, so take softmax(dim=-1) of the masked scores [B, H, S_query, S_key]. Over the queries, the weights at position t depend on later queries, and the model reads the future.",
    "zh": 'softmax 是沿 query 维（dim=-2）做的，而不是沿 key：每个 query 对它能看到的各个 key 的权重之和应为 1，所以应对掩码后的分数 [B, H, S_query, S_key] 做 softmax(dim=-1)。沿 query 做时，位置 t 的权重取决于后面的 query，模型就读到了未来。'})
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
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-2)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))


@mistake(target="TinyLM", id="tinylm-no-length-check", hint={
    "en": 'forward accepts a sequence longer than max_seq_len. The contract says S > max_seq_len raises ValueError (naming both numbers): the position tables have max_seq_len rows, and a longer input must be refused, not silently cut or broadcast.',
    "zh": 'forward 接受了比 max_seq_len 更长的序列。约定要求 S > max_seq_len 时抛出 ValueError（并写出这两个数）：位置表只有 max_seq_len 行，更长的输入必须被拒绝，而不是悄悄截断或广播。'})
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
        pos = torch.arange(4 * max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(4 * max_seq_len, d_model)
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


@mistake(target="TinyLM", id="tinylm-accepts-unknown-position", hint={
    "en": 'An unknown `position` was accepted (and silently treated as no position information). Raise ValueError naming the allowed methods: a typo such as "rotary" must not train a model without positions.',
    "zh": '未知的 `position` 被接受了（并被悄悄当作没有位置信息）。应抛出 ValueError 并列出允许的方法：像 "rotary" 这样的拼写错误不应训练出一个没有位置信息的模型。'})
class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
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
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)
        x = x + self.proj(y)
        return self.lm_head(self.ln_final(x))
