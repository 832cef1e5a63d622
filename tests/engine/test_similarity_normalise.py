"""coursegen/similarity/normalise.py: each way of disguising a copy gives the same canonical text
as the original; a real change of the program does not."""

from __future__ import annotations

from coursegen.similarity.normalise import normalise, units
from tests.student_code import MERGE_PAIR

NAMES = frozenset({"merge_pair", "encode"})

ORIGINAL = (
    "\nimport torch\n\n\n"
    + MERGE_PAIR
    + """

def encode(tokens, vocab, unk_token="<UNK>"):
    out = []
    for t in tokens:
        out.append(vocab.get(t, vocab[unk_token]))
    return out
"""
)


def test_layout_comments_docstrings_and_annotations_disappear():
    disguised = '''
import torch
def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Merge."""
    out, k = [ ], 0   # output and cursor
    while (k < len(ids)):
        if k + 1 < len(ids) and ids[k] == pair[0] and ids[k + 1] == pair[1]:
            out.append( new_id ); k += 2
        else:
            out.append(ids[k])
            k += 1
    return out
def encode(tokens, vocab, unk_token='<UNK>'):
    # every token
    out = []
    for t in tokens: out.append(vocab.get(t, vocab[unk_token]))
    return out
'''
    assert normalise(disguised, NAMES) == normalise(ORIGINAL, NAMES)


def test_dead_code_and_prints_disappear():
    disguised = ORIGINAL.replace("    return out\n", "    unused = len(ids)\n    return out\n    print(out)\n", 1)
    disguised = disguised.replace("    out = []\n", "    out = []\n    if False:\n        print('debug')\n")
    disguised += "\n\ndef helper(x):\n    return x * 2\n\nprint(encode(['a'], {'a': 0}))\n"
    disguised += "\nif __name__ == '__main__':\n    merge_pair([1], (1, 1), 2)\n"
    assert normalise(disguised, NAMES) == normalise(ORIGINAL, NAMES)


def test_a_loop_that_appends_becomes_its_comprehension_and_order_is_canonical():
    disguised = """
def encode(tokens, vocab, unk_token="<UNK>"):
    out = [vocab.get(t, vocab[unk_token]) for t in tokens]
    return out


import torch


"""
    disguised += MERGE_PAIR
    assert normalise(disguised, NAMES) == normalise(ORIGINAL, NAMES)
    assert [key for key, _, _ in units(normalise(disguised, NAMES))] == [
        "encode",
        "merge_pair",
    ]  # torch is never used: its import goes


def test_a_different_program_stays_different():
    changed = ORIGINAL.replace("k += 2", "k += 1")
    assert normalise(changed, NAMES) != normalise(ORIGINAL, NAMES)


def test_debug_prints_unused_imports_and_other_accumulating_loops_are_undone():
    plain = """
import math


def norms(rows):
    return {key: math.sqrt(sum(v * v for v in row)) for key, row in rows.items()}
"""
    disguised = """
import os
import math
DEBUG = True


def norms(rows):
    result = {}
    for key, row in rows.items():
        total = 0
        for v in row:
            total += v * v
        result[key] = math.sqrt(total)
        print(key, total)
    return result
"""
    names = frozenset({"norms"})
    looped = normalise(disguised, names)
    assert "print" not in looped and "import os" not in looped and "DEBUG" not in looped
    assert "sum(" in looped and "import math" in looped
    assert normalise(plain, names).count("for") == 2
