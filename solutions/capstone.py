"""The capstone: a tiny language model that puts every piece of the course together."""
from __future__ import annotations

import math

import torch
import torch.nn as nn

POSITION_METHODS = ("none", "sinusoidal", "learned", "rope", "alibi")


class TinyLM(nn.Module):
    """Token embedding, a position method, one causal attention block and a tied LM head.

    Args:
        vocab_size: V.
        d_model: D, a multiple of n_heads.
        n_heads: H; each head has d = D / H features (even when position is "rope").
        max_seq_len: the longest sequence forward accepts.
        position: one of "none", "sinusoidal", "learned", "rope", "alibi":
            "sinusoidal": add the fixed encoding sin/cos(p / 10000^(2i/D)) to the token vectors;
            "learned":    add row p of `self.position_embedding = nn.Embedding(max_seq_len, D)`;
            "rope":       rotate the interleaved pairs of q and k ([B, H, S, d]) by p * 10000^(-2i/d);
            "alibi":      add -slope_h * |i - j| to the scores of head h (the ALiBi slopes);
            "none":       no position information at all.

    Attributes:
        token_embedding: nn.Embedding(V, D).
        lm_head: nn.Linear(D, V, bias=False) whose weight IS token_embedding.weight.

    forward(input_ids [B, S] long) -> logits [B, S, V] (float32):
        x = token vectors (+ absolute positions); x = x + attention(LayerNorm(x)) with a causal
        mask (query i sees keys j <= i) and H heads; logits = lm_head(LayerNorm(x)).
        Logits at t depend on tokens 0..t only.

    Fixed tables (sinusoidal encodings, RoPE angles, ALiBi biases) are buffers
    (register_buffer), so model.double() and model.to(device) convert them with the weights.

    Raises:
        ValueError: an unknown `position`, D not divisible by H, an odd head size with "rope"
            (in __init__), or S > max_seq_len (in forward).
    """

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, max_seq_len: int, position: str = "rope"):
        super().__init__()
        # BEGIN SOLUTION
        methods = ("none", "sinusoidal", "learned", "rope", "alibi")
        if position not in methods:
            raise ValueError(f"position must be one of {', '.join(methods)}, got {position!r}")
        if d_model % n_heads != 0 or (position == "rope" and (d_model // n_heads) % 2 != 0):
            raise ValueError(f"d_model {d_model} must split into {n_heads} heads (of even size for rope)")
        self.position, self.n_heads, self.max_seq_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight          # tied: one Parameter
        self.qkv = nn.Linear(d_model, 3 * d_model)                 # q, k, v side by side
        self.proj = nn.Linear(d_model, d_model, bias=False)
        self.ln_attn, self.ln_final = nn.LayerNorm(d_model), nn.LayerNorm(d_model)   # pre-norm, as in GPT-2
        pos = torch.arange(max_seq_len, dtype=torch.float64)        # [S_max]
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        if position == "sinusoidal":
            angle = pos[:, None] / 10000.0 ** (torch.arange(0, d_model, 2) / d_model)   # [S_max, D/2]
            pe = torch.stack((angle.sin(), angle.cos()), dim=-1).flatten(-2)          # interleaved [S_max, D]
            self.register_buffer("pe", pe.float(), persistent=False)
        if position == "rope":
            d = d_model // n_heads
            angle = pos[:, None] * 10000.0 ** (-torch.arange(0, d, 2) / d)           # [S_max, d/2]
            self.register_buffer("cos", angle.cos().float(), persistent=False)
            self.register_buffer("sin", angle.sin().float(), persistent=False)
        if position == "alibi":
            closest = 2 ** math.floor(math.log2(n_heads))
            slopes = [2 ** (-8 * (h + 1) / closest) for h in range(closest)]
            slopes += [2 ** (-8 * (h + 1) / (2 * closest)) for h in range(0, 2 * (n_heads - closest), 2)]
            distance = (pos[None, :] - pos[:, None]).abs()                            # [S_max, S_max]
            bias = -torch.tensor(slopes, dtype=torch.float64)[:, None, None] * distance   # [H, S_max, S_max]
            self.register_buffer("bias", bias.float(), persistent=False)
        for weight in (self.token_embedding.weight, self.qkv.weight, self.proj.weight):
            nn.init.normal_(weight, std=0.02)                                   # small init, as in GPT-2
        # END SOLUTION

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        B, S = input_ids.shape
        if S > self.max_seq_len:
            raise ValueError(f"sequence length {S} exceeds max_seq_len {self.max_seq_len}")
        x = self.token_embedding(input_ids)                                 # [B, S, D]
        if self.position == "learned":
            x = x + self.position_embedding.weight[:S]                      # [B, S, D] + [S, D]
        if self.position == "sinusoidal":
            x = x + self.pe[:S]
        D, H = x.shape[-1], self.n_heads
        q, k, v = self.qkv(self.ln_attn(x)).split(D, dim=-1)                # each [B, S, D]
        q, k, v = (t.view(B, S, H, D // H).transpose(1, 2) for t in (q, k, v))  # [B, H, S, d]
        if self.position == "rope":
            cos, sin = self.cos[:S], self.sin[:S]                           # [S, d/2]
            q, k = (torch.stack((t[..., 0::2] * cos - t[..., 1::2] * sin,    # pairs (t[2i], t[2i+1])
                                 t[..., 0::2] * sin + t[..., 1::2] * cos), dim=-1).flatten(-2)
                    for t in (q, k))                                        # counter-clockwise; V never
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)                # [B, H, S, S]
        if self.position == "alibi":
            scores = scores + self.bias[:, :S, :S]
        causal = torch.ones(S, S, dtype=torch.bool, device=x.device).tril()  # key j <= query i
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(B, S, D)                   # heads side by side again
        x = x + self.proj(y)                                                 # residual
        return self.lm_head(self.ln_final(x))                                # [B, S, V]
        # END SOLUTION
