"""Wrong solutions for every exercise of the course, written from the contracts in
/work/shared/DESIGN.md (the Exercise API table) and the exercises' docstrings, as students get
them wrong: not copied from the references or from the catalogue (solutions/mistakes/).

WRONG[exercise] = [(label, source)]: `source` defines the exercise (it is appended to the
reference module, so the module's other exercises are right and the wrong one replaces its
reference). The sources use only torch, math, nn and F, as the references do.
"""

from __future__ import annotations

# ---- a TinyLM written from the contract (not the reference's layout: separate q, k, v, o
# projections, no LayerNorm), with one switch per mistake of the issue ---------------------------

_TINY = """
class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, n_heads, max_seq_len, position="rope"):
        super().__init__()
        if CHECK_POSITION and position not in ("none", "sinusoidal", "learned", "rope", "alibi"):
            raise ValueError(f"unknown position {position!r}")
        self.position, self.heads, self.longest = position, n_heads, max_seq_len
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=HEAD_BIAS)
        self.lm_head.weight = self.token_embedding.weight
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.out_proj = nn.Linear(d_model, d_model, bias=False)
        head = d_model // n_heads
        steps = torch.arange(4 * max_seq_len, dtype=torch.float64)
        if position == "learned":
            self.position_embedding = nn.Embedding(4 * max_seq_len if not CHECK_LENGTH else max_seq_len, d_model)
        if position == "sinusoidal":
            rates = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
            table = torch.zeros(len(steps), d_model, dtype=torch.float64)
            table[:, 0::2] = torch.sin(steps[:, None] * rates)
            table[:, 1::2] = torch.cos(steps[:, None] * rates)
            self.register_buffer("table", table.float())
        if position == "rope":
            width = d_model if ROPE_FROM_D_MODEL else head
            rates = 10000.0 ** (-torch.arange(0, head, 2, dtype=torch.float64) / width)
            self.register_buffer("angles", (steps[:, None] * rates).float())
        if position == "alibi":
            def powers(n):
                return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]
            low = 2 ** int(math.log2(n_heads))
            slopes = torch.tensor(powers(low) + powers(2 * low)[0::2][: n_heads - low], dtype=torch.float64)
            gap = (steps[None, :] - steps[:, None]).abs()
            self.register_buffer("alibi", (ALIBI_SIGN * slopes[:, None, None] * gap).float())

    def _split(self, t):
        b, s, d = t.shape
        return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)

    def _rotate(self, t):
        s = t.shape[-2]
        cos, sin = self.angles[:s].cos(), self.angles[:s].sin()
        even, odd = t[..., 0::2], t[..., 1::2]
        out = torch.empty_like(t)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    def forward(self, input_ids):
        b, s = input_ids.shape
        if CHECK_LENGTH and s > self.longest:
            raise ValueError(f"{s} tokens, but max_seq_len is {self.longest}")
        x = self.token_embedding(input_ids)
        if self.position == "learned":
            x = x + self.position_embedding.weight[:s]
        if self.position == "sinusoidal":
            x = x + self.table[:s]
        q, k, v = self._split(self.q_proj(x)), self._split(self.k_proj(x)), self._split(self.v_proj(x))
        if self.position == "rope":
            q, k = self._rotate(q), self._rotate(k)
            if ROTATE_V:
                v = self._rotate(v)
        scale = math.sqrt(x.shape[-1]) if SCALE_BY_D_MODEL else math.sqrt(q.shape[-1])
        scores = q @ k.transpose(-1, -2) / scale
        if self.position == "alibi":
            scores = scores + self.alibi[:, :s, :s]
        allowed = torch.ones(s, s, dtype=torch.bool).tril()
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=SOFTMAX_DIM)
        weights = torch.nan_to_num(weights)
        y = (weights @ v).transpose(1, 2).reshape(b, s, -1)
        return self.lm_head(x + self.out_proj(y))
"""

_RIGHT = dict(
    CHECK_POSITION=True,
    CHECK_LENGTH=True,
    HEAD_BIAS=False,
    ROPE_FROM_D_MODEL=False,
    ROTATE_V=False,
    SCALE_BY_D_MODEL=False,
    ALIBI_SIGN=-1.0,
    SOFTMAX_DIM=-1,
)


def tiny_lm(**wrong: object) -> str:
    """The TinyLM above with the given switches changed from the right values."""
    switches = {**_RIGHT, **wrong}
    source = _TINY
    for name, value in switches.items():
        source = source.replace(name, repr(value))
    return source


WRONG: dict[str, list[tuple[str, str]]] = {
    "encode": [
        (
            "unknown is -1",
            "def encode(tokens, vocab, unk_token='<UNK>'):\n    return [vocab.get(t, -1) for t in tokens]\n",
        ),
        (
            "KeyError, not ValueError",
            "def encode(tokens, vocab, unk_token='<UNK>'):\n"
            "    return [vocab[t] if t in vocab else vocab[unk_token] for t in tokens]\n",
        ),
        (
            "a tensor, not a list",
            "def encode(tokens, vocab, unk_token='<UNK>'):\n"
            "    if any(t not in vocab for t in tokens) and unk_token not in vocab:\n"
            "        raise ValueError('unknown')\n"
            "    return torch.tensor([vocab.get(t, vocab.get(unk_token)) for t in tokens], dtype=torch.long)\n",
        ),
        (
            "unknown tokens skipped",
            "def encode(tokens, vocab, unk_token='<UNK>'):\n    return [vocab[t] for t in tokens if t in vocab]\n",
        ),
    ],
    "pad_batch": [
        (
            "left padding",
            "def pad_batch(sequences, pad_id=0):\n"
            "    if not sequences:\n        raise ValueError('empty')\n"
            "    n = max(map(len, sequences))\n"
            "    ids = torch.tensor([[pad_id] * (n - len(s)) + list(s) for s in sequences], dtype=torch.long)\n"
            "    mask = torch.tensor([[False] * (n - len(s)) + [True] * len(s) for s in sequences])\n"
            "    return ids.reshape(len(sequences), n), mask.reshape(len(sequences), n)\n",
        ),
        (
            "float mask",
            "def pad_batch(sequences, pad_id=0):\n"
            "    if not sequences:\n        raise ValueError('empty')\n"
            "    n = max(map(len, sequences))\n"
            "    ids = torch.full((len(sequences), n), pad_id, dtype=torch.long)\n"
            "    mask = torch.zeros(len(sequences), n)\n"
            "    for i, s in enumerate(sequences):\n"
            "        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)\n        mask[i, :len(s)] = 1.0\n"
            "    return ids, mask\n",
        ),
        (
            "one column too many",
            "def pad_batch(sequences, pad_id=0):\n"
            "    if not sequences:\n        raise ValueError('empty')\n"
            "    n = max(map(len, sequences)) + 1\n"
            "    ids = torch.full((len(sequences), n), pad_id, dtype=torch.long)\n"
            "    mask = torch.zeros(len(sequences), n, dtype=torch.bool)\n"
            "    for i, s in enumerate(sequences):\n"
            "        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)\n        mask[i, :len(s)] = True\n"
            "    return ids, mask\n",
        ),
        (
            "empty batch returns empty tensors",
            "def pad_batch(sequences, pad_id=0):\n"
            "    n = max([len(s) for s in sequences], default=0)\n"
            "    ids = torch.full((len(sequences), n), pad_id, dtype=torch.long)\n"
            "    mask = torch.zeros(len(sequences), n, dtype=torch.bool)\n"
            "    for i, s in enumerate(sequences):\n"
            "        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)\n        mask[i, :len(s)] = True\n"
            "    return ids, mask\n",
        ),
    ],
    "merge_pair": [
        (
            "changes the caller's list",
            "def merge_pair(ids, pair, new_id):\n"
            "    k = 0\n"
            "    while k + 1 < len(ids):\n"
            "        if ids[k] == pair[0] and ids[k + 1] == pair[1]:\n"
            "            ids[k] = new_id\n            del ids[k + 1]\n"
            "        k += 1\n"
            "    return ids\n",
        ),
        (
            "str.join and str.replace",
            "def merge_pair(ids, pair, new_id):\n"
            "    text = ' '.join(map(str, ids)).replace(f'{pair[0]} {pair[1]}', str(new_id))\n"
            "    return [int(t) for t in text.split()] if text else []\n",
        ),
        (
            "overlapping matches all merged",
            "def merge_pair(ids, pair, new_id):\n"
            "    out, k = [], 0\n"
            "    while k < len(ids):\n"
            "        if k + 1 < len(ids) and (ids[k], ids[k + 1]) == tuple(pair):\n"
            "            out.append(new_id)\n"
            "            if k + 2 < len(ids) and (ids[k + 1], ids[k + 2]) == tuple(pair):\n"
            "                k += 1\n                continue\n"
            "            k += 2\n"
            "        else:\n            out.append(ids[k])\n            k += 1\n"
            "    return out\n",
        ),
        (
            "pair order ignored",
            "def merge_pair(ids, pair, new_id):\n"
            "    out, k = [], 0\n"
            "    while k < len(ids):\n"
            "        if k + 1 < len(ids) and {ids[k], ids[k + 1]} == set(pair):\n"
            "            out.append(new_id)\n            k += 2\n"
            "        else:\n            out.append(ids[k])\n            k += 1\n"
            "    return out\n",
        ),
    ],
    "embedding_lookup": [
        ("flattened ids", "def embedding_lookup(weight, input_ids):\n    return weight[input_ids.reshape(-1)]\n"),
        ("float32 always", "def embedding_lookup(weight, input_ids):\n    return weight.float()[input_ids]\n"),
        (
            "columns, not rows",
            "def embedding_lookup(weight, input_ids):\n"
            "    return torch.stack([weight[:, i % weight.shape[1]] for i in input_ids.reshape(-1).tolist()])"
            ".reshape(*input_ids.shape, -1)[..., : weight.shape[1]]\n",
        ),
    ],
    "one_hot_lookup": [
        (
            "classes from the largest id",
            "def one_hot_lookup(weight, input_ids):\n    return F.one_hot(input_ids).to(weight.dtype) @ weight\n",
        ),
        (
            "float32 one-hot",
            "def one_hot_lookup(weight, input_ids):\n"
            "    return F.one_hot(input_ids, weight.shape[0]).float() @ weight.float()\n",
        ),
        (
            "one-hot times the transposed table",
            "def one_hot_lookup(weight, input_ids):\n"
            "    hot = F.one_hot(input_ids, weight.shape[0]).to(weight.dtype)\n"
            "    return hot @ weight / weight.shape[0] ** 0.5\n",
        ),
    ],
    "embedding_backward": [
        (
            "repeated ids overwrite",
            "def embedding_backward(input_ids, grad_output, vocab_size):\n"
            "    grad = torch.zeros(vocab_size, grad_output.shape[-1], dtype=grad_output.dtype)\n"
            "    grad[input_ids.reshape(-1)] = grad_output.reshape(-1, grad_output.shape[-1])\n"
            "    return grad\n",
        ),
        (
            "repeated ids averaged",
            "def embedding_backward(input_ids, grad_output, vocab_size):\n"
            "    d = grad_output.shape[-1]\n"
            "    total = torch.zeros(vocab_size, d, dtype=grad_output.dtype)\n"
            "    count = torch.zeros(vocab_size, 1, dtype=grad_output.dtype)\n"
            "    total.index_add_(0, input_ids.reshape(-1), grad_output.reshape(-1, d))\n"
            "    count.index_add_(0, input_ids.reshape(-1), torch.ones(input_ids.numel(), 1, dtype=grad_output.dtype))\n"
            "    return total / count.clamp(min=1)\n",
        ),
        (
            "gradient per position, not per token",
            "def embedding_backward(input_ids, grad_output, vocab_size):\n"
            "    return grad_output.reshape(-1, grad_output.shape[-1]).clone()\n",
        ),
    ],
    "lm_logits": [
        ("no transpose", "def lm_logits(hidden, weight):\n    return hidden @ weight\n"),
        ("probabilities", "def lm_logits(hidden, weight):\n    return torch.softmax(hidden @ weight.T, dim=-1)\n"),
        (
            "scaled by sqrt(D)",
            "def lm_logits(hidden, weight):\n    return hidden @ weight.T / math.sqrt(hidden.shape[-1])\n",
        ),
    ],
    "count_parameters": [
        (
            "tied flag inverted",
            "def count_parameters(vocab_size, d_model, tied):\n    return vocab_size * d_model * (2 if tied else 1)\n",
        ),
        (
            "head bias counted",
            "def count_parameters(vocab_size, d_model, tied):\n"
            "    return vocab_size * d_model * (1 if tied else 2) + vocab_size\n",
        ),
        (
            "a float",
            "def count_parameters(vocab_size, d_model, tied):\n    return float(vocab_size * d_model * (1 if tied else 2))\n",
        ),
    ],
    "TiedLM": [
        (
            "weight copied",
            "class TiedLM(nn.Module):\n"
            "    def __init__(self, vocab_size, d_model):\n"
            "        super().__init__()\n"
            "        self.token_embedding = nn.Embedding(vocab_size, d_model)\n"
            "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
            "        self.lm_head.weight.data.copy_(self.token_embedding.weight.data)\n"
            "    def forward(self, input_ids):\n"
            "        return self.lm_head(self.token_embedding(input_ids))\n",
        ),
        (
            "head with a bias",
            "class TiedLM(nn.Module):\n"
            "    def __init__(self, vocab_size, d_model):\n"
            "        super().__init__()\n"
            "        self.token_embedding = nn.Embedding(vocab_size, d_model)\n"
            "        self.lm_head = nn.Linear(d_model, vocab_size)\n"
            "        self.lm_head.weight = self.token_embedding.weight\n"
            "    def forward(self, input_ids):\n"
            "        return self.lm_head(self.token_embedding(input_ids))\n",
        ),
        (
            "log-probabilities",
            "class TiedLM(nn.Module):\n"
            "    def __init__(self, vocab_size, d_model):\n"
            "        super().__init__()\n"
            "        self.token_embedding = nn.Embedding(vocab_size, d_model)\n"
            "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
            "        self.lm_head.weight = self.token_embedding.weight\n"
            "    def forward(self, input_ids):\n"
            "        return torch.log_softmax(self.lm_head(self.token_embedding(input_ids)), dim=-1)\n",
        ),
    ],
    "self_attention": [
        (
            "no scaling",
            "def self_attention(x, w_q, w_k, w_v):\n"
            "    return torch.softmax((x @ w_q) @ (x @ w_k).transpose(-1, -2), dim=-1) @ (x @ w_v)\n",
        ),
        (
            "softmax over the queries",
            "def self_attention(x, w_q, w_k, w_v):\n"
            "    s = (x @ w_q) @ (x @ w_k).transpose(-1, -2) / math.sqrt(x.shape[-1])\n"
            "    return torch.softmax(s, dim=-2) @ (x @ w_v)\n",
        ),
        (
            "nn.Linear layout",
            "def self_attention(x, w_q, w_k, w_v):\n"
            "    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T\n"
            "    return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(x.shape[-1]), dim=-1) @ v\n",
        ),
        (
            "scaled by D",
            "def self_attention(x, w_q, w_k, w_v):\n"
            "    q, k, v = x @ w_q, x @ w_k, x @ w_v\n"
            "    return torch.softmax(q @ k.transpose(-1, -2) / x.shape[-1], dim=-1) @ v\n",
        ),
    ],
    "sinusoidal_encoding": [
        (
            "sin and cos swapped",
            "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n"
            "    if d_model % 2:\n        raise ValueError('odd')\n"
            "    p = torch.arange(seq_len, dtype=torch.float64)[:, None]\n"
            "    a = p / base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n"
            "    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)\n"
            "    pe[:, 0::2], pe[:, 1::2] = torch.cos(a), torch.sin(a)\n"
            "    return pe.float()\n",
        ),
        (
            "exponent i/D",
            "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n"
            "    if d_model % 2:\n        raise ValueError('odd')\n"
            "    p = torch.arange(seq_len, dtype=torch.float64)[:, None]\n"
            "    a = p / base ** (torch.arange(d_model // 2, dtype=torch.float64) / d_model)\n"
            "    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)\n"
            "    pe[:, 0::2], pe[:, 1::2] = torch.sin(a), torch.cos(a)\n"
            "    return pe.float()\n",
        ),
        (
            "odd D accepted",
            "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n"
            "    p = torch.arange(seq_len, dtype=torch.float64)[:, None]\n"
            "    a = p / base ** (torch.arange(0, d_model + 1, 2, dtype=torch.float64) / d_model)\n"
            "    pe = torch.stack((torch.sin(a), torch.cos(a)), dim=-1).reshape(seq_len, -1)[:, :d_model]\n"
            "    return pe.float()\n",
        ),
        (
            "float64 result",
            "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n"
            "    if d_model % 2:\n        raise ValueError('odd')\n"
            "    p = torch.arange(seq_len, dtype=torch.float64)[:, None]\n"
            "    a = p / base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n"
            "    return torch.stack((torch.sin(a), torch.cos(a)), dim=-1).reshape(seq_len, d_model)\n",
        ),
    ],
    "LearnedPositionalEmbedding": [
        (
            "no length check",
            "class LearnedPositionalEmbedding(nn.Module):\n"
            "    def __init__(self, max_seq_len, d_model):\n"
            "        super().__init__()\n"
            "        self.position_embedding = nn.Embedding(max_seq_len, d_model)\n"
            "    def forward(self, x):\n"
            "        rows = self.position_embedding.weight[: x.shape[1]]\n"
            "        return x[:, : rows.shape[0]] + rows\n",
        ),
        (
            "rows from 1",
            "class LearnedPositionalEmbedding(nn.Module):\n"
            "    def __init__(self, max_seq_len, d_model):\n"
            "        super().__init__()\n"
            "        self.position_embedding = nn.Embedding(max_seq_len + 1, d_model)\n"
            "    def forward(self, x):\n"
            "        if x.shape[1] > self.position_embedding.num_embeddings - 1:\n"
            "            raise ValueError(f'{x.shape[1]} > {self.position_embedding.num_embeddings - 1}')\n"
            "        return x + self.position_embedding(torch.arange(1, x.shape[1] + 1))\n",
        ),
        (
            "message without the numbers",
            "class LearnedPositionalEmbedding(nn.Module):\n"
            "    def __init__(self, max_seq_len, d_model):\n"
            "        super().__init__()\n"
            "        self.position_embedding = nn.Embedding(max_seq_len, d_model)\n"
            "    def forward(self, x):\n"
            "        if x.shape[1] > self.position_embedding.num_embeddings:\n"
            "            raise ValueError('sequence too long')\n"
            "        return x + self.position_embedding.weight[: x.shape[1]]\n",
        ),
    ],
    "relative_positions": [
        (
            "i - j",
            "def relative_positions(seq_len):\n    r = torch.arange(seq_len)\n    return r[:, None] - r[None, :]\n",
        ),
        (
            "distance",
            "def relative_positions(seq_len):\n"
            "    r = torch.arange(seq_len)\n    return (r[None, :] - r[:, None]).abs()\n",
        ),
        (
            "floats",
            "def relative_positions(seq_len):\n"
            "    r = torch.arange(seq_len, dtype=torch.float32)\n    return r[None, :] - r[:, None]\n",
        ),
    ],
    "apply_rope": [
        (
            "half split",
            "def apply_rope(x, positions=None, base=10000.0):\n"
            "    s, d = x.shape[-2], x.shape[-1]\n"
            "    p = torch.arange(s) if positions is None else positions\n"
            "    a = p.double()[:, None] * base ** (-torch.arange(0, d, 2).double() / d)\n"
            "    c, n = a.cos().to(x.dtype), a.sin().to(x.dtype)\n"
            "    x1, x2 = x[..., : d // 2], x[..., d // 2 :]\n"
            "    return torch.cat((x1 * c - x2 * n, x1 * n + x2 * c), dim=-1)\n",
        ),
        (
            "clockwise",
            "def apply_rope(x, positions=None, base=10000.0):\n"
            "    s, d = x.shape[-2], x.shape[-1]\n"
            "    p = torch.arange(s) if positions is None else positions\n"
            "    a = p.double()[:, None] * base ** (-torch.arange(0, d, 2).double() / d)\n"
            "    c, n = a.cos().to(x.dtype), a.sin().to(x.dtype)\n"
            "    e, o = x[..., 0::2], x[..., 1::2]\n"
            "    return torch.stack((e * c + o * n, -e * n + o * c), dim=-1).flatten(-2)\n",
        ),
        (
            "positions ignored",
            "def apply_rope(x, positions=None, base=10000.0):\n"
            "    s, d = x.shape[-2], x.shape[-1]\n"
            "    a = torch.arange(s).double()[:, None] * base ** (-torch.arange(0, d, 2).double() / d)\n"
            "    c, n = a.cos().to(x.dtype), a.sin().to(x.dtype)\n"
            "    e, o = x[..., 0::2], x[..., 1::2]\n"
            "    return torch.stack((e * c - o * n, e * n + o * c), dim=-1).flatten(-2)\n",
        ),
        (
            "float32 result",
            "def apply_rope(x, positions=None, base=10000.0):\n"
            "    s, d = x.shape[-2], x.shape[-1]\n"
            "    p = torch.arange(s) if positions is None else positions\n"
            "    a = p.float()[:, None] * base ** (-torch.arange(0, d, 2).float() / d)\n"
            "    e, o = x[..., 0::2].float(), x[..., 1::2].float()\n"
            "    return torch.stack((e * a.cos() - o * a.sin(), e * a.sin() + o * a.cos()), dim=-1).flatten(-2)\n",
        ),
    ],
    "alibi_slopes": [
        (
            "first slope 1",
            "def alibi_slopes(n_heads):\n    return torch.tensor([2.0 ** (-8.0 * h / n_heads) for h in range(n_heads)])\n",
        ),
        (
            "power-of-two rule for every H",
            "def alibi_slopes(n_heads):\n"
            "    return torch.tensor([2.0 ** (-8.0 * (h + 1) / n_heads) for h in range(n_heads)])\n",
        ),
        (
            "a list",
            "def alibi_slopes(n_heads):\n"
            "    def p(n):\n        return [2.0 ** (-8.0 * (h + 1) / n) for h in range(n)]\n"
            "    low = 2 ** int(math.log2(n_heads))\n"
            "    return p(low) + p(2 * low)[0::2][: n_heads - low]\n",
        ),
    ],
    "alibi_bias": [
        (
            "positive",
            "def alibi_bias(n_heads, seq_len):\n"
            "    r = torch.arange(seq_len)\n"
            "    return alibi_slopes(n_heads)[:, None, None] * (r[None, :] - r[:, None]).abs()\n",
        ),
        (
            "signed offset",
            "def alibi_bias(n_heads, seq_len):\n"
            "    r = torch.arange(seq_len)\n"
            "    return alibi_slopes(n_heads)[:, None, None] * (r[None, :] - r[:, None])\n",
        ),
        (
            "power-of-two slopes inside",
            "def alibi_bias(n_heads, seq_len):\n"
            "    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / n_heads) for h in range(n_heads)])\n"
            "    r = torch.arange(seq_len)\n"
            "    return -slopes[:, None, None] * (r[None, :] - r[:, None]).abs()\n",
        ),
    ],
    "causal_mask": [
        (
            "upper triangle",
            "def causal_mask(seq_len):\n    return torch.ones(seq_len, seq_len, dtype=torch.bool).triu()\n",
        ),
        (
            "no diagonal",
            "def causal_mask(seq_len):\n"
            "    if seq_len < 0:\n        raise ValueError('negative')\n"
            "    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril(-1)\n",
        ),
        (
            "negative length unchecked",
            "def causal_mask(seq_len):\n    i = torch.arange(max(seq_len, 0))\n    return i[None, :] <= i[:, None]\n",
        ),
        (
            "float mask",
            "def causal_mask(seq_len):\n"
            "    if seq_len < 0:\n        raise ValueError('negative')\n"
            "    return torch.ones(seq_len, seq_len).tril()\n",
        ),
    ],
    "next_token_loss": [
        (
            "unstable softmax",
            "def next_token_loss(logits, input_ids, ignore_id=None):\n"
            "    t = input_ids[:, 1:]\n"
            "    keep = torch.ones_like(t, dtype=torch.bool) if ignore_id is None else t != ignore_id\n"
            "    if not keep.any():\n        raise ValueError('no target')\n"
            "    e = torch.exp(logits[:, :-1])\n"
            "    p = e / e.sum(-1, keepdim=True)\n"
            "    picked = p.gather(-1, t.masked_fill(~keep, 0)[..., None])[..., 0]\n"
            "    return -torch.log(picked[keep]).mean()\n",
        ),
        (
            "always float32",
            "def next_token_loss(logits, input_ids, ignore_id=None):\n"
            "    t = input_ids[:, 1:]\n"
            "    keep = torch.ones_like(t, dtype=torch.bool) if ignore_id is None else t != ignore_id\n"
            "    if not keep.any():\n        raise ValueError('no target')\n"
            "    lp = torch.log_softmax(logits[:, :-1].to(torch.float32), dim=-1)\n"
            "    return -lp.gather(-1, t.masked_fill(~keep, 0)[..., None])[..., 0][keep].mean()\n",
        ),
        (
            "not shifted",
            "def next_token_loss(logits, input_ids, ignore_id=None):\n"
            "    keep = torch.ones_like(input_ids, dtype=torch.bool) if ignore_id is None else input_ids != ignore_id\n"
            "    if input_ids.shape[1] < 2 or not keep.any():\n        raise ValueError('no target')\n"
            "    lp = torch.log_softmax(logits, dim=-1)\n"
            "    return -lp.gather(-1, input_ids.masked_fill(~keep, 0)[..., None])[..., 0][keep].mean()\n",
        ),
        (
            "padding counted",
            "def next_token_loss(logits, input_ids, ignore_id=None):\n"
            "    if input_ids.shape[1] < 2:\n        raise ValueError('no target')\n"
            "    v = logits.shape[-1]\n"
            "    return F.cross_entropy(logits[:, :-1].reshape(-1, v), input_ids[:, 1:].reshape(-1).clamp(0, v - 1))\n",
        ),
    ],
    "ntk_base": [
        (
            "no validation",
            "def ntk_base(base, scale, head_dim):\n    return base * scale ** (head_dim / (head_dim - 2))\n",
        ),
        (
            "base times scale",
            "def ntk_base(base, scale, head_dim):\n"
            "    if scale < 1 or head_dim % 2 or head_dim < 4:\n        raise ValueError('bad')\n"
            "    return base * scale\n",
        ),
        (
            "exponent inverted",
            "def ntk_base(base, scale, head_dim):\n"
            "    if scale < 1 or head_dim % 2 or head_dim < 4:\n        raise ValueError('bad')\n"
            "    return base * scale ** ((head_dim - 2) / head_dim)\n",
        ),
        (
            "odd head_dim accepted",
            "def ntk_base(base, scale, head_dim):\n"
            "    if scale < 1 or head_dim < 4:\n        raise ValueError('bad')\n"
            "    return base * scale ** (head_dim / (head_dim - 2))\n",
        ),
    ],
    "TinyLM": [
        ("lm_head with a bias", tiny_lm(HEAD_BIAS=True)),
        (
            "four errors at once",
            tiny_lm(ROPE_FROM_D_MODEL=True, ROTATE_V=True, ALIBI_SIGN=1.0, SCALE_BY_D_MODEL=True),
        ),
        ("rope frequencies from d_model", tiny_lm(ROPE_FROM_D_MODEL=True)),
        ("v rotated", tiny_lm(ROTATE_V=True)),
        ("alibi bias of the wrong sign", tiny_lm(ALIBI_SIGN=1.0)),
        ("scores divided by sqrt(D)", tiny_lm(SCALE_BY_D_MODEL=True)),
        ("no length check", tiny_lm(CHECK_LENGTH=False)),
        ("unknown position accepted", tiny_lm(CHECK_POSITION=False)),
        ("softmax over the queries", tiny_lm(SOFTMAX_DIM=-2)),
    ],
}

RIGHT_TINY_LM = tiny_lm()  # the switches all right: must pass every check (the checks accept this layout)
