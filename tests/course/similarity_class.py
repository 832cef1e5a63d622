"""A class of the first course's `tokens` module (encode, pad_batch, merge_pair) for
`coursegen similarity`: what every student wrote, and which pairs copied.

- ind-0..ind-4: independent correct solutions, each function in a different style;
- cat-0..cat-2: independent students who make the catalogued mistake merge-first-only;
- unc-0..unc-2: independent students who make one uncatalogued mistake (pairs read two by two);
- enc-0..enc-2: independent students who make another (unknown tokens get the id len(vocab));
- stub-0, stub-1: the generated stub, each with only encode filled in (differently);
- cp-*: copies, one per way of hiding a copy, of correct and of wrong solutions.

`COPIED` is the ground truth: the pairs that share code because one copied the other (or both
copied one source). No other pair may be flagged."""

from __future__ import annotations

import json
from pathlib import Path
from tests.student_code import MERGE_PAIR

ROOT = Path(__file__).resolve().parents[2]

ENCODE = [
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    out = []
    for token in tokens:
        if token in vocab:
            out.append(vocab[token])
        elif unk_token in vocab:
            out.append(vocab[unk_token])
        else:
            raise ValueError(f"unknown token {token!r}")
    return out
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    fallback = vocab.get(unk_token)
    ids = []
    for t in tokens:
        i = vocab.get(t, fallback)
        if i is None:
            raise ValueError("token not in vocabulary and no unknown token: " + str(t))
        ids.append(i)
    return ids
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    missing = [t for t in tokens if t not in vocab]
    if missing and unk_token not in vocab:
        raise ValueError(f"{missing[0]} is unknown")
    return [vocab[t] if t in vocab else vocab[unk_token] for t in tokens]
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    def lookup(word):
        try:
            return vocab[word]
        except KeyError:
            if unk_token not in vocab:
                raise ValueError(word) from None
            return vocab[unk_token]

    return list(map(lookup, tokens))
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    result = []
    for tok in tokens:
        if tok not in vocab and unk_token not in vocab:
            raise ValueError("cannot encode " + repr(tok))
        result.append(vocab[tok] if tok in vocab else vocab[unk_token])
    return result
""",
]

PAD = [
    """
def pad_batch(sequences, pad_id=0):
    if not sequences:
        raise ValueError("no sequences")
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.bool)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, : len(seq)] = True
    return ids, mask
""",
    """
def pad_batch(sequences, pad_id=0):
    if len(sequences) == 0:
        raise ValueError("empty batch")
    longest = max(map(len, sequences))
    rows = [list(s) + [pad_id] * (longest - len(s)) for s in sequences]
    flags = [[True] * len(s) + [False] * (longest - len(s)) for s in sequences]
    return torch.tensor(rows, dtype=torch.long), torch.tensor(flags, dtype=torch.bool)
""",
    """
def pad_batch(sequences, pad_id=0):
    if not sequences:
        raise ValueError("pad_batch needs at least one sequence")
    lengths = torch.tensor([len(s) for s in sequences])
    S = int(lengths.max())
    mask = torch.arange(S)[None, :] < lengths[:, None]
    ids = torch.full(mask.shape, pad_id, dtype=torch.long)
    ids[mask] = torch.tensor([x for s in sequences for x in s], dtype=torch.long)
    return ids, mask
""",
    """
def pad_batch(sequences, pad_id=0):
    batch = len(sequences)
    if batch < 1:
        raise ValueError("nothing to pad")
    size = 0
    for s in sequences:
        size = max(size, len(s))
    ids = torch.empty(batch, size, dtype=torch.long).fill_(pad_id)
    mask = torch.zeros(batch, size).bool()
    b = 0
    while b < batch:
        n = len(sequences[b])
        if n:
            ids[b, :n] = torch.as_tensor(sequences[b])
            mask[b, :n] = True
        b += 1
    return ids, mask
""",
    """
def pad_batch(sequences, pad_id=0):
    if not sequences:
        raise ValueError("no sequences given")
    tensors = [torch.tensor(list(s), dtype=torch.long) for s in sequences]
    target = max(t.numel() for t in tensors)
    ids = torch.stack([torch.nn.functional.pad(t, (0, target - t.numel()), value=pad_id) for t in tensors])
    mask = torch.stack([torch.arange(target) < t.numel() for t in tensors])
    return ids, mask
""",
]

MERGE = [
    "\n" + MERGE_PAIR,
    """
def merge_pair(ids, pair, new_id):
    merged = []
    skip = False
    for position, value in enumerate(ids):
        if skip:
            skip = False
            continue
        nxt = ids[position + 1] if position + 1 < len(ids) else None
        if (value, nxt) == tuple(pair):
            merged.append(new_id)
            skip = True
        else:
            merged.append(value)
    return merged
""",
    """
def merge_pair(ids, pair, new_id):
    if len(ids) < 2:
        return list(ids)
    if (ids[0], ids[1]) == tuple(pair):
        return [new_id] + merge_pair(ids[2:], pair, new_id)
    return [ids[0]] + merge_pair(ids[1:], pair, new_id)
""",
    """
def merge_pair(ids, pair, new_id):
    a, b = pair
    result = []
    i = 0
    n = len(ids)
    while i < n:
        match = i < n - 1 and ids[i] == a and ids[i + 1] == b
        result.append(new_id if match else ids[i])
        i += 2 if match else 1
    return result
""",
    """
def merge_pair(ids, pair, new_id):
    source = list(ids)
    output = []
    while source:
        if len(source) >= 2 and source[0] == pair[0] and source[1] == pair[1]:
            output.append(new_id)
            del source[:2]
        else:
            output.append(source.pop(0))
    return output
""",
]

FIRST_ONLY = [  # catalogued: merge-first-only
    """
def merge_pair(ids, pair, new_id):
    out = list(ids)
    for k in range(len(out) - 1):
        if (out[k], out[k + 1]) == tuple(pair):
            out[k:k + 2] = [new_id]
            break
    return out
""",
    """
def merge_pair(ids, pair, new_id):
    result = []
    done = False
    i = 0
    while i < len(ids):
        if not done and i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            result.append(new_id)
            done = True
            i += 2
        else:
            result.append(ids[i])
            i += 1
    return result
""",
    """
def merge_pair(ids, pair, new_id):
    try:
        where = next(k for k in range(len(ids) - 1) if ids[k] == pair[0] and ids[k + 1] == pair[1])
    except StopIteration:
        return list(ids)
    return [*ids[:where], new_id, *ids[where + 2:]]
""",
]

TWO_BY_TWO = [  # uncatalogued: pairs read two by two from the start
    """
def merge_pair(ids, pair, new_id):
    out = []
    for k in range(0, len(ids) - 1, 2):
        if (ids[k], ids[k + 1]) == tuple(pair):
            out.append(new_id)
        else:
            out.extend(ids[k:k + 2])
    if len(ids) % 2:
        out.append(ids[-1])
    return out
""",
    """
def merge_pair(ids, pair, new_id):
    chunks = [ids[k:k + 2] for k in range(0, len(ids), 2)]
    out = []
    for chunk in chunks:
        out += [new_id] if tuple(chunk) == tuple(pair) else list(chunk)
    return out
""",
    """
def merge_pair(ids, pair, new_id):
    result = []
    i = 0
    while i < len(ids):
        two = tuple(ids[i:i + 2])
        if two == (pair[0], pair[1]):
            result.append(new_id)
        else:
            result.extend(two)
        i += 2
    return result
""",
]

NEW_ID = [  # uncatalogued: unknown tokens get a new id, len(vocab)
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab[t] if t in vocab else len(vocab) for t in tokens]
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    size = len(vocab)
    result = []
    for token in tokens:
        result.append(vocab.get(token, size))
    return result
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    fresh = max(vocab.values()) + 1 if vocab else 0   # the next free id (ids are 0..V-1 here)
    return [vocab.get(t, fresh) for t in tokens]
""",
]

STUB_ENCODE = [  # filled into the generated stub by two students
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    if unk_token not in vocab and any(t not in vocab for t in tokens):
        raise ValueError("unknown token")
    unknown = vocab.get(unk_token, -1)
    return [vocab.get(t, unknown) for t in tokens]
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    encoded = []
    for word in tokens:
        if word in vocab:
            encoded += [vocab[word]]
            continue
        if unk_token in vocab:
            encoded += [vocab[unk_token]]
            continue
        raise ValueError(word)
    return encoded
""",
]


def _module(*parts: str) -> str:
    return "import torch\n" + "".join(parts)


def _stub_with(encode: str) -> str:
    stub = (ROOT / "exercises" / "tokens.py").read_text(encoding="utf-8")
    start = stub.index("def encode(")
    end = stub.index("\ndef ", start + 1)
    return stub[:start] + encode.strip() + "\n\n" + stub[end:]


def _notebook(cells: list[str]) -> str:
    def cell(source: str, number: int) -> dict:
        return {
            "cell_type": "code",
            "id": f"cell-{number}",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": source.strip("\n").splitlines(keepends=True),
        }

    notebook = {
        "cells": [cell(source, i) for i, source in enumerate(cells)],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=1)


# ---- the copies --------------------------------------------------------------------------------

RENAMED = (
    _module(ENCODE[1], PAD[1], MERGE[1])
    .replace("fallback", "unk_id")
    .replace("ids = []", "encoded = []")
    .replace("ids.append(i)", "encoded.append(idx)")
    .replace("return ids\n", "return encoded\n")
    .replace("i = vocab.get(t, fallback)", "idx = vocab.get(t, unk_id)")
    .replace("i = vocab.get(t, unk_id)", "idx = vocab.get(t, unk_id)")
    .replace("if i is None", "if idx is None")
    .replace("longest", "max_len")
    .replace("rows", "padded")
    .replace("flags", "valid")
    .replace("merged", "res")
    .replace("skip", "jump")
    .replace("position", "pos")
    .replace("nxt", "following")
)

REFORMATTED = """import torch   # tensors


# encode: look each token up
def encode(tokens,
           vocab,
           unk_token='<UNK>'):
    '''Map tokens to ids.'''
    missing = [ t for t in tokens if t not in vocab ]   # the unknown ones
    if missing and (unk_token not in vocab):
        raise ValueError(f'{missing[0]} is unknown')
    return [ vocab[t] if t in vocab else vocab[unk_token]
             for t in tokens ]


def pad_batch(sequences, pad_id = 0):
    # empty batch: an error
    if not sequences: raise ValueError('pad_batch needs at least one sequence')
    lengths = torch.tensor([ len(s) for s in sequences ])
    S = int(lengths.max())
    mask = (torch.arange(S)[None, :]
            < lengths[:, None])
    ids = torch.full(mask.shape, pad_id, dtype = torch.long)
    ids[mask] = torch.tensor([ x for s in sequences for x in s ], dtype = torch.long)
    return (ids, mask)


def merge_pair(ids, pair, new_id):
    if len(ids) < 2: return list(ids)
    if (ids[0], ids[1]) == tuple(pair): return [new_id] + merge_pair(ids[2:], pair, new_id)
    return [ids[0]] + merge_pair(ids[1:], pair, new_id)
"""

REORDERED = _module(MERGE[3], PAD[3], ENCODE[3])

COMPREHENSION = _module(
    ENCODE[4].replace(
        """    result = []
    for tok in tokens:
        if tok not in vocab and unk_token not in vocab:
            raise ValueError("cannot encode " + repr(tok))
        result.append(vocab[tok] if tok in vocab else vocab[unk_token])
    return result""",
        """    for tok in tokens:
        if tok not in vocab and unk_token not in vocab:
            raise ValueError("cannot encode " + repr(tok))
    result = []
    for tok in tokens:
        result.append(vocab[tok] if tok in vocab else vocab[unk_token])
    return result""",
    ),
    PAD[4],
    MERGE[4],
)
COMPREHENSION_COPY = COMPREHENSION.replace(
    """    result = []
    for tok in tokens:
        result.append(vocab[tok] if tok in vocab else vocab[unk_token])""",
    """    result = [vocab[tok] if tok in vocab else vocab[unk_token] for tok in tokens]""",
)

DEAD_CODE = _module(
    TWO_BY_TWO[0]
    .replace(
        "    out = []\n",
        "    out = []\n    checked = 0\n    if False:\n        print('debug', ids)\n",
    )
    .replace("    return out\n", "    return out\n    print('never')\n"),
    """
def _unused_helper(values):
    total = 0
    for v in values:
        total += v
    return total
""",
)

NOTEBOOK_COPY = _notebook(
    [
        "import torch",
        "# my merge\n" + TWO_BY_TWO[1],
        "print(merge_pair([1, 2, 1, 2], (1, 2), 9))",
    ]
)

RENAMED_WRONG = _module(
    NEW_ID[0].replace("tokens", "words").replace(" t ", " w ").replace("(t)", "(w)").replace("[t]", "[w]")
)

EVERYTHING = _notebook(  # a copy of ind-2 renamed, reordered, commented, with dead code, in a notebook
    [
        "import torch",
        MERGE[2].replace("ids", "seq").replace("new_id", "new_id"),
        PAD[2].replace("lengths", "lens").replace("S = ", "width = ").replace("(S)", "(width)")
        + "\n\ndef debug(x):\n    return x\n",
        "# encoding\n" + ENCODE[2].replace("missing", "unknown") + "\nencode(['a'], {'a': 0})\n",
    ]
).replace("seq[0], seq[1]", "seq[0], seq[1]")

CLASS: dict[str, dict[str, str]] = {
    **{f"ind-{i}": {"tokens.py": _module(ENCODE[i], PAD[i], MERGE[i])} for i in range(5)},
    **{f"cat-{i}": {"tokens.py": _module(code)} for i, code in enumerate(FIRST_ONLY)},
    **{f"unc-{i}": {"tokens.py": _module(code)} for i, code in enumerate(TWO_BY_TWO)},
    **{f"enc-{i}": {"tokens.py": _module(code)} for i, code in enumerate(NEW_ID)},
    **{f"stub-{i}": {"tokens.py": _stub_with(code)} for i, code in enumerate(STUB_ENCODE)},
    "cp-verbatim": {"tokens.py": _module(ENCODE[0], PAD[0], MERGE[0])},
    "cp-renamed": {"tokens.py": RENAMED},
    "cp-reformatted": {"tokens.py": REFORMATTED},
    "cp-reordered": {"tokens.py": REORDERED},
    "cp-comprehension": {"tokens.py": COMPREHENSION_COPY},
    "cp-dead-code": {"tokens.py": DEAD_CODE},
    "cp-notebook": {"tokens.ipynb": NOTEBOOK_COPY},
    "cp-renamed-wrong": {"tokens.py": RENAMED_WRONG},
    "cp-everything": {"tokens.ipynb": EVERYTHING},
}
CLASS["ind-4"] = {"tokens.py": COMPREHENSION}  # the loop version the comprehension copy rewrote

COPIED = {
    ("cp-verbatim", "ind-0"),
    ("cp-renamed", "ind-1"),
    ("cp-reformatted", "ind-2"),
    ("cp-reordered", "ind-3"),
    ("cp-comprehension", "ind-4"),
    ("cp-dead-code", "unc-0"),
    ("cp-notebook", "unc-1"),
    ("cp-renamed-wrong", "enc-0"),
    ("cp-everything", "ind-2"),
    ("cp-everything", "cp-reformatted"),  # two copies of one source
}
SHARE_A_MISTAKE = (["cat-0", "cat-1", "cat-2"], ["unc-0", "unc-1", "unc-2"], ["enc-0", "enc-1", "enc-2"])
SHARE_THE_STUB = ("stub-0", "stub-1")


def write_class(folder: Path) -> None:
    """Every student's files under folder/<student>/."""
    for student, files in CLASS.items():
        (folder / student).mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (folder / student / name).write_text(text, encoding="utf-8")


def precision_recall(flagged: set[tuple[str, str]]) -> tuple[float, float]:
    truth = {tuple(sorted(p)) for p in COPIED}
    found = {tuple(sorted(p)) for p in flagged}
    hits = len(found & truth)
    return (hits / len(found) if found else 1.0), hits / len(truth)
