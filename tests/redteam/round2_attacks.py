"""Attacks of red-team round 2 on the trusted side (issue 11's hardening), as batch entries.

Each builder takes (batch folder, facts) and creates files under the batch folder, which lies
on the same file system as the course (so hard links to the references can be made).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IDENTITY_ROPE = "def apply_rope(x, positions=None, base=10000.0):\n    return x.clone()\n"
DEEP = 1_100  # folders: os.walk recursed once per level and raised RecursionError at ~1000
COPIES = 70  # rope.py files in one student's folder, each graded in full before


def build_honest(batch: Path, facts: dict) -> None:
    (batch / "honest_rope").mkdir()
    (batch / "honest_rope" / "rope.py").write_text((ROOT / "solutions" / "rope.py").read_text())


def build_hard_links(batch: Path, facts: dict) -> None:
    """Hard links (not symbolic ones) to the references: O_NOFOLLOW does not see them."""
    (batch / "hardlink_in_folder").mkdir()
    os.link(ROOT / "solutions" / "rope.py", batch / "hardlink_in_folder" / "rope.py")
    os.link(ROOT / "solutions" / "alibi.py", batch / "hardlink_top_alibi.py")


def build_deep_tree(batch: Path, facts: dict) -> None:
    """A student folder nested DEEP levels (one letter each, under PATH_MAX), a file at the bottom."""
    (batch / "deep_tree").mkdir()
    fd = os.open(batch / "deep_tree", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(DEEP):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        handle = os.open("rope.py", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(handle, IDENTITY_ROPE.encode())
        os.close(handle)
    finally:
        os.close(fd)


def build_many_copies(batch: Path, facts: dict) -> None:
    """COPIES rope.py files in sub-folders of one student's folder: each would cost a full grading."""
    for i in range(COPIES):
        folder = batch / "many_copies" / f"try{i:03d}"
        folder.mkdir(parents=True)
        (folder / "rope.py").write_text(IDENTITY_ROPE)


def build_special_files(batch: Path, facts: dict) -> None:
    """A unix socket named like a submission (opening it fails with ENXIO)."""
    (batch / "socket_named_rope").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(batch / "socket_named_rope" / "rope.py"))
    server.close()
    facts.setdefault("keep", []).append(server)


BUILDERS = (build_honest, build_hard_links, build_deep_tree, build_many_copies, build_special_files)


def remove_deep_tree(batch: Path) -> None:
    """shutil.rmtree recurses too; remove the deep folder bottom-up through descriptors."""
    top = batch / "deep_tree"
    if not top.exists():
        return
    fds = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    while "a" in os.listdir(fds[-1]):
        fds.append(os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    for name in os.listdir(fds[-1]):
        os.unlink(name, dir_fd=fds[-1])
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        os.close(child)
        os.rmdir("a", dir_fd=parent)
    os.close(fds[0])
    os.rmdir(top)


# ---- state kept in the child across checks -------------------------------------------------------

# A correct alibi_slopes that notes every n_heads it is called with, and an alibi_bias that
# fails with those notes in its message: when a hidden check of alibi_slopes ran before the
# visible checks of alibi_bias, its inputs (every head count 1..32) showed in their feedback.
HIDDEN_INPUTS_NOTED = (
    (ROOT / "solutions" / "alibi.py").read_text()
    + """

_NOTES = []
_right_slopes = alibi_slopes


def alibi_slopes(n_heads):
    _NOTES.append(n_heads)
    return _right_slopes(n_heads)


def alibi_bias(n_heads, seq_len):
    raise ValueError("NOTED[" + ",".join(map(str, _NOTES)) + "]")
"""
)
VISIBLE_SLOPES_CALLS = 5  # the visible checks of alibi_slopes: one head count, then 6, 12, 24 and one more


# ---- no effort, shaped like the answer ---------------------------------------------------------

# Constants of the contract's shape and dtype (zeros, a fixed 0/1 pattern, an all-True mask):
# the degenerate-case checks (length one: ALiBi bias all zero, PE rows of zeros and ones,
# relative positions [[0]]) passed for them, 1/9 for alibi and 2/16 for positions.
SHAPED_CONSTANTS = {
    "alibi": "import torch\ndef alibi_slopes(n_heads):\n    return torch.zeros(n_heads)\ndef alibi_bias(n_heads, seq_len):\n    return torch.zeros(n_heads, seq_len, seq_len)\n",
    "attention": "import torch\ndef self_attention(x, w_q, w_k, w_v):\n    return torch.zeros_like(x)\ndef causal_mask(seq_len):\n    return torch.ones(max(seq_len, 0), max(seq_len, 0), dtype=torch.bool)\n",
    "embedding": "import torch\ndef embedding_lookup(weight, input_ids):\n    return torch.zeros(*input_ids.shape, weight.shape[1], dtype=weight.dtype)\ndef one_hot_lookup(weight, input_ids):\n    return torch.zeros(*input_ids.shape, weight.shape[1], dtype=weight.dtype)\ndef embedding_backward(input_ids, grad_output, vocab_size):\n    return torch.zeros(vocab_size, grad_output.shape[-1], dtype=grad_output.dtype)\n",
    "lm_head": "import torch\nfrom torch import nn\ndef lm_logits(hidden, weight):\n    return torch.zeros(*hidden.shape[:-1], weight.shape[0], dtype=hidden.dtype)\ndef count_parameters(vocab_size, d_model, tied):\n    return 0\nclass TiedLM(nn.Module):\n    def __init__(self, vocab_size, d_model):\n        super().__init__()\n        self.token_embedding = nn.Embedding(vocab_size, d_model)\n        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n        self.v = vocab_size\n    def forward(self, input_ids):\n        return torch.zeros(*input_ids.shape, self.v)\ndef next_token_loss(logits, input_ids, ignore_id=None):\n    return torch.zeros((), dtype=logits.dtype)\n",
    "positions": "import torch\nfrom torch import nn\ndef sinusoidal_encoding(seq_len, d_model, base=10000.0):\n    pe = torch.zeros(seq_len, d_model)\n    pe[:, 1::2] = 1.0\n    return pe\nclass LearnedPositionalEmbedding(nn.Module):\n    def __init__(self, max_seq_len, d_model):\n        super().__init__()\n        self.position_embedding = nn.Embedding(max_seq_len, d_model)\n    def forward(self, x):\n        return x\ndef relative_positions(seq_len):\n    return torch.zeros(seq_len, seq_len, dtype=torch.long)\n",
    "rope": "import torch\ndef apply_rope(x, positions=None, base=10000.0):\n    return torch.zeros_like(x)\ndef ntk_base(base, scale, head_dim):\n    return float(base)\n",
    "tokens": 'import torch\ndef encode(tokens, vocab, unk_token="<UNK>"):\n    return [0 for _ in tokens]\ndef pad_batch(sequences, pad_id=0):\n    n = max((len(s) for s in sequences), default=0)\n    return torch.zeros(len(sequences), n, dtype=torch.long), torch.ones(len(sequences), n, dtype=torch.bool)\ndef merge_pair(ids, pair, new_id):\n    return list(ids)\n',
}


def build_shaped_constants(batch: Path, facts: dict) -> None:
    for module, source in SHAPED_CONSTANTS.items():
        (batch / f"shaped_{module}").mkdir()
        (batch / f"shaped_{module}" / f"{module}.py").write_text(source)


BUILDERS = BUILDERS + (build_shaped_constants,)


# A correct alibi whose alibi_bias hangs on long sequences: only the hidden 256-long check
# times out. The JSON report's problem_kinds said "timeout" for it.
SLOW_ONLY_WHEN_HIDDEN = (
    (ROOT / "solutions" / "alibi.py").read_text()
    + """

import time as _time
_right_bias = alibi_bias


def alibi_bias(n_heads, seq_len):
    if seq_len > 64:
        _time.sleep(30)
    return _right_bias(n_heads, seq_len)
"""
)
