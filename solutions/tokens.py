"""Tokens to ids: look words up in a vocabulary and pad a batch to one length."""
from __future__ import annotations

import torch


def encode(tokens: list[str], vocab: dict[str, int], unk_token: str = "<UNK>") -> list[int]:
    """Map each token to its id in `vocab`.

    Args:
        tokens: the tokens of one text, e.g. ["the", "cat", "sat"].
        vocab: token -> id, e.g. {"<UNK>": 0, "the": 1, "cat": 2}.
        unk_token: the token whose id replaces every token missing from `vocab`.

    Returns:
        A list of int ids, one per token, in order (an empty list for no tokens).

    Raises:
        ValueError: a token is not in `vocab` and `unk_token` is not in `vocab` either.
    """
    # BEGIN SOLUTION
    ids = []
    for token in tokens:
        if token in vocab:
            ids.append(vocab[token])
        elif unk_token in vocab:
            ids.append(vocab[unk_token])
        else:
            raise ValueError(f"unknown token {token!r}, and the unknown token {unk_token!r} is not in the vocabulary")
    return ids
    # END SOLUTION


def pad_batch(sequences: list[list[int]], pad_id: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id sequences of different lengths into one batch.

    Args:
        sequences: B lists of int ids (lengths may differ; a list may be empty).
        pad_id: the id written after the end of each shorter sequence.

    Returns:
        (ids, mask), both of shape [B, S_max] where S_max is the longest length:
        ids:  torch.long; row b is sequences[b] followed by pad_id up to S_max.
        mask: torch.bool; True where ids holds a real token, False at padding.

    Raises:
        ValueError: `sequences` is empty (there is no batch to build).
    """
    # BEGIN SOLUTION
    if len(sequences) == 0:
        raise ValueError("pad_batch needs at least one sequence, got an empty list")
    max_len = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), max_len), pad_id, dtype=torch.long)   # [B, S_max]
    mask = torch.zeros((len(sequences), max_len), dtype=torch.bool)         # [B, S_max]
    for b, seq in enumerate(sequences):
        ids[b, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[b, : len(seq)] = True
    return ids, mask
    # END SOLUTION


def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Apply one BPE merge: replace every occurrence of `pair` in `ids` by `new_id`.

    Args:
        ids: the token ids of one text, e.g. [5, 6, 5, 6, 7].
        pair: the two adjacent ids to merge, e.g. (5, 6).
        new_id: the id of the merged token, e.g. 9.

    Returns:
        A new list (the input list is not changed). Scanning left to right, wherever
        (ids[k], ids[k+1]) == pair, emit new_id and skip both; otherwise emit ids[k].
        Matches never overlap and the leftmost wins: merge_pair([1, 1, 1], (1, 1), 9) == [9, 1].
    """
    # BEGIN SOLUTION
    out = []
    k = 0
    while k < len(ids):
        if k + 1 < len(ids) and (ids[k], ids[k + 1]) == tuple(pair):
            out.append(new_id)  # the pair becomes one token
            k += 2
        else:
            out.append(ids[k])
            k += 1
    return out
    # END SOLUTION
