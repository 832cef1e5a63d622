"""Correct implementations written differently from the references (loops, other ops, other
formulas), as a student might write them: a graded notebook filled with these must get full marks.
Each value is the source of one exercise cell, using only what the notebook's setup cell imports
(torch, math, nn) plus what the cell imports itself."""

from __future__ import annotations

ALTERNATIVES: dict[str, str] = {
    "encode": """
def encode(tokens, vocab, unk_token="<UNK>"):
    unknown = [t for t in tokens if t not in vocab]
    if unknown and unk_token not in vocab:
        raise ValueError(f"{unknown[0]!r} is not in the vocabulary and neither is {unk_token!r}")
    return [int(vocab.get(t, vocab.get(unk_token, -1))) for t in tokens]
""",
    "pad_batch": """
def pad_batch(sequences, pad_id=0):
    if not sequences:
        raise ValueError("cannot pad an empty batch")
    longest = max(map(len, sequences))
    rows = [list(s) + [pad_id] * (longest - len(s)) for s in sequences]
    lengths = torch.tensor([len(s) for s in sequences])
    mask = torch.arange(longest)[None, :] < lengths[:, None]
    return torch.tensor(rows, dtype=torch.long).reshape(len(sequences), longest), mask
""",
    "embedding_lookup": """
def embedding_lookup(weight, input_ids):
    flat = torch.index_select(weight, 0, input_ids.reshape(-1))
    return flat.reshape(*input_ids.shape, weight.shape[1])
""",
    "one_hot_lookup": """
def one_hot_lookup(weight, input_ids):
    vocab = torch.arange(weight.shape[0])
    one_hot = (input_ids.unsqueeze(-1) == vocab).to(weight.dtype)
    return torch.einsum("...v,vd->...d", one_hot, weight)
""",
    "embedding_backward": """
def embedding_backward(input_ids, grad_output, vocab_size):
    d = grad_output.shape[-1]
    grad = torch.zeros(vocab_size, d, dtype=grad_output.dtype)
    for token, row in zip(input_ids.reshape(-1).tolist(), grad_output.reshape(-1, d)):
        grad[token] += row
    return grad
""",
    "lm_logits": """
def lm_logits(hidden, weight):
    return torch.einsum("bsd,vd->bsv", hidden, weight)
""",
    "count_parameters": """
def count_parameters(vocab_size, d_model, tied):
    matrices = 1 if tied else 2
    return int(matrices * vocab_size * d_model)
""",
    "TiedLM": """
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.token_embedding.weight = self.lm_head.weight

    def forward(self, input_ids):
        hidden = self.token_embedding(input_ids)
        return torch.matmul(hidden, self.token_embedding.weight.t())
""",
    "self_attention": """
def self_attention(x, w_q, w_k, w_v):
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    v = torch.matmul(x, w_v)
    scores = torch.einsum("bid,bjd->bij", q, k) / x.shape[-1] ** 0.5
    scores = scores - scores.max(dim=-1, keepdim=True).values
    weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    return torch.einsum("bij,bjd->bid", weights, v)
""",
    "sinusoidal_encoding": """
import math


def sinusoidal_encoding(seq_len, d_model, base=10000.0):
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    pe = torch.empty(seq_len, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        frequency = math.exp(-math.log(base) * 2 * i / d_model)
        angles = torch.arange(seq_len, dtype=torch.float64) * frequency
        pe[:, 2 * i] = torch.sin(angles)
        pe[:, 2 * i + 1] = torch.cos(angles)
    return pe.float()
""",
    "LearnedPositionalEmbedding": """
class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_seq_len, d_model):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.position_embedding = nn.Embedding(max_seq_len, d_model)

    def forward(self, x):
        length = x.size(1)
        if length > self.max_seq_len:
            raise ValueError(f"got {length} positions but max_seq_len is {self.max_seq_len}")
        positions = torch.arange(length, device=x.device)
        return x + self.position_embedding(positions).unsqueeze(0)
""",
    "relative_positions": """
def relative_positions(seq_len):
    return torch.tensor([[j - i for j in range(seq_len)] for i in range(seq_len)], dtype=torch.long).reshape(seq_len, seq_len)
""",
    "apply_rope": """
def apply_rope(x, positions=None, base=10000.0):
    *_, seq_len, dim = x.shape
    if dim % 2:
        raise ValueError("the last dimension must be even")
    if positions is None:
        positions = torch.arange(seq_len)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    angles = torch.outer(positions.double(), inv_freq)
    rotation = torch.polar(torch.ones_like(angles), angles)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], dim // 2, 2).contiguous())
    return torch.view_as_real(pairs * rotation).reshape(x.shape).to(x.dtype)
""",
    "alibi_slopes": """
def alibi_slopes(n_heads):
    if n_heads < 1:
        raise ValueError("need at least one head")
    def geometric(n):
        start = 2 ** (-8 / n)
        return [start ** (h + 1) for h in range(n)]
    closest = 1
    while closest * 2 <= n_heads:
        closest *= 2
    slopes = geometric(closest)
    extra = geometric(2 * closest)
    slopes += [extra[i] for i in range(0, 2 * closest, 2)][: n_heads - closest]
    return torch.tensor(slopes, dtype=torch.float32)
""",
    "alibi_bias": """
def alibi_bias(n_heads, seq_len):
    slopes = alibi_slopes(n_heads)
    bias = torch.zeros(n_heads, seq_len, seq_len)
    for i in range(seq_len):
        for j in range(seq_len):
            bias[:, i, j] = -slopes * abs(i - j)
    return bias + 0.0
""",
    "merge_pair": """
def merge_pair(ids, pair, new_id):
    # written differently: an iterator that consumes the second token of a match
    first, second = pair
    out, it = [], iter(range(len(ids)))
    for k in it:
        if ids[k] == first and k + 1 < len(ids) and ids[k + 1] == second:
            out.append(new_id)
            next(it, None)
        else:
            out.append(ids[k])
    return out
""",
    "causal_mask": """
def causal_mask(seq_len):
    # written differently: tril of a ones matrix, then bool
    if seq_len < 0:
        raise ValueError("negative seq_len: " + str(seq_len))
    return torch.tril(torch.ones(seq_len, seq_len)).bool()
""",
    "next_token_loss": """
import torch.nn.functional as F


def next_token_loss(logits, input_ids, ignore_id=None):
    # written differently: F.cross_entropy with ignore_index on flattened shifted tensors
    targets = input_ids[:, 1:].reshape(-1)
    flat = logits[:, :-1].reshape(-1, logits.shape[-1])
    if ignore_id is None:
        if targets.numel() == 0:
            raise ValueError("no targets")
        return F.cross_entropy(flat, targets)
    keep = targets != ignore_id
    if keep.sum() == 0:
        raise ValueError("every target is ignored")
    return F.cross_entropy(flat[keep], targets[keep])
""",
    "ntk_base": """
def ntk_base(base, scale, head_dim):
    # written differently: through logarithms
    import math

    if scale < 1 or head_dim < 4 or head_dim % 2:
        raise ValueError(f"bad arguments: scale={scale}, head_dim={head_dim}")
    return math.exp(math.log(base) + math.log(scale) * head_dim / (head_dim - 2))
""",
    "TinyLM": """
import torch.nn.functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, n_heads, max_seq_len, position="rope"):
        super().__init__()
        if position not in ("none", "sinusoidal", "learned", "rope", "alibi"):
            raise ValueError(f"unknown position method {position!r}")
        self.position, self.h, self.max_len = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.token_embedding.weight = self.lm_head.weight
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        p = torch.arange(max_seq_len).float()
        if position == "learned":
            self.position_embedding = nn.Embedding(max_seq_len, d_model)
        elif position == "sinusoidal":
            pe = torch.zeros(max_seq_len, d_model)
            freq = torch.exp(-math.log(10000.0) * torch.arange(0, d_model, 2).float() / d_model)
            pe[:, 0::2] = torch.sin(p[:, None] * freq)
            pe[:, 1::2] = torch.cos(p[:, None] * freq)
            self.register_buffer("pe", pe)
        elif position == "rope":
            d = d_model // n_heads
            angles = torch.outer(p, 1.0 / 10000.0 ** (torch.arange(0, d, 2).float() / d))
            self.register_buffer("angles", angles)
        elif position == "alibi":
            def power_of_two(n):  # the paper's rule: a power of two, then every other slope of 2n
                return [2 ** (-8 * (i + 1) / n) for i in range(n)]
            low = 2 ** int(math.log2(n_heads))
            slopes = torch.tensor(power_of_two(low) + power_of_two(2 * low)[0::2][: n_heads - low])
            dist = (p[None, :] - p[:, None]).abs()
            self.register_buffer("alibi", -slopes[:, None, None] * dist)

    def _heads(self, t):
        b, s, d = t.shape
        return t.reshape(b, s, self.h, d // self.h).permute(0, 2, 1, 3)

    def _rope(self, t):
        s = t.shape[-2]
        rot = torch.polar(torch.ones_like(self.angles[:s]), self.angles[:s]).to(
            torch.complex128 if t.dtype == torch.float64 else torch.complex64)
        z = torch.view_as_complex(t.reshape(*t.shape[:-1], -1, 2).contiguous())
        return torch.view_as_real(z * rot).flatten(-2)

    def forward(self, input_ids):
        s = input_ids.shape[1]
        if s > self.max_len:
            raise ValueError(f"{s} tokens but max_seq_len is {self.max_len}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding(torch.arange(s))
        elif self.position == "sinusoidal":
            x = x + self.pe[:s]
        q, k, v = self._heads(self.q(x)), self._heads(self.k(x)), self._heads(self.v(x))
        if self.position == "rope":
            q, k = self._rope(q), self._rope(k)
        if self.position == "alibi":
            mask = torch.full((s, s), float("-inf"), dtype=x.dtype).triu(1) + self.alibi[:, :s, :s]
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.permute(0, 2, 1, 3).reshape(x.shape)
        return self.lm_head(x + self.o(y))
""",
}
