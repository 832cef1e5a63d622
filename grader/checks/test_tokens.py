"""Checks for exercises/tokens.py: encode, pad_batch and merge_pair."""
from __future__ import annotations

import pytest
import torch

from grader.checking import expect_call, expect_equal, expect_raises, expect_working


def _randint(rng: torch.Generator, low: int, high: int) -> int:
    """An int in [low, high] drawn from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


def _vocab(rng: torch.Generator, size: int, *specials: str) -> dict[str, int]:
    """`size` words plus `specials`, with ids shuffled so that no special token is sure to be 0."""
    words = [f"w{i}" for i in range(size)] + list(specials)
    ids = torch.randperm(len(words), generator=rng).tolist()
    return dict(zip(words, ids))


def _sequences(rng: torch.Generator, count: int, min_len: int, max_len: int) -> list[list[int]]:
    return [torch.randint(1, 50, (_randint(rng, min_len, max_len),), generator=rng).tolist() for _ in range(count)]


# ---- encode ------------------------------------------------------------------------------------

@pytest.mark.exercise("encode")
def test_encode_maps_known_tokens_to_their_ids(candidate, reference, rng):
    vocab = _vocab(rng, 20, "<UNK>")
    words = list(vocab)
    tokens = [words[i] for i in torch.randint(0, len(words), (12,), generator=rng)]
    expect_call(candidate, reference, "encode", tokens, vocab)


@pytest.mark.exercise("encode")
@pytest.mark.points(2)
def test_encode_maps_unknown_tokens_to_the_unk_id(candidate, reference, rng):
    vocab = _vocab(rng, 20, "<UNK>")
    while vocab["<UNK>"] == 0:  # the id of <UNK> must be worth looking up
        vocab = _vocab(rng, 20, "<UNK>")
    tokens = [f"w{i}" for i in torch.randint(0, 40, (15,), generator=rng).tolist()] + ["never-seen"]
    expect_call(candidate, reference, "encode", tokens, vocab)


@pytest.mark.exercise("encode")
@pytest.mark.hidden
def test_encode_uses_the_unk_token_argument(candidate, reference, rng):
    vocab = _vocab(rng, 10, "<UNK>", "[UNK]")
    while 0 in (vocab["<UNK>"], vocab["[UNK]"]):  # neither unknown token may be the default id 0
        vocab = _vocab(rng, 10, "<UNK>", "[UNK]")
    tokens = ["w1", "missing", "w2", "also-missing"]
    expect_call(candidate, reference, "encode", tokens, vocab, unk_token="[UNK]")


@pytest.mark.exercise("encode")
@pytest.mark.hidden
def test_encode_raises_valueerror_for_unknown_token_without_unk_in_vocab(candidate, reference, rng):
    vocab = _vocab(rng, 10)
    expect_working(candidate, reference, "encode", ["w3", "w1", "w4"], vocab)    # not a function that always raises
    expect_raises(candidate, "encode", ValueError, ["w1", "not-in-vocab"], vocab)


@pytest.mark.exercise("encode")
@pytest.mark.hidden
def test_encode_of_no_tokens_is_an_empty_list(candidate, reference, rng):
    vocab = _vocab(rng, 5, "<UNK>")
    expect_working(candidate, reference, "encode", ["w2", "w0", "unseen"], vocab)  # not the identity or []
    expect_call(candidate, reference, "encode", [], vocab)


# ---- pad_batch ---------------------------------------------------------------------------------

@pytest.mark.exercise("pad_batch")
@pytest.mark.points(2)
def test_pad_batch_right_pads_ids_and_masks_real_tokens(candidate, reference, rng):
    sequences = _sequences(rng, 4, 1, 9)
    sequences[_randint(rng, 0, 3)] = [7] * 10           # one longest row, so every other row is padded
    expect_call(candidate, reference, "pad_batch", sequences, pad_id=_randint(rng, 1, 99))


@pytest.mark.exercise("pad_batch")
def test_pad_batch_mask_is_a_bool_tensor_true_at_real_tokens(candidate, reference, rng):
    sequences = _sequences(rng, 3, 1, 6) + [[5] * 7]
    actual = candidate.pad_batch(sequences)
    expect_equal(actual[1] if isinstance(actual, (list, tuple)) and len(actual) == 2 else actual,
                 reference.pad_batch(sequences)[1], what="the mask (pad_batch(...)[1])",
                 target="pad_batch", redo=lambda impl: impl(sequences)[1])


@pytest.mark.exercise("pad_batch")
@pytest.mark.hidden
def test_pad_batch_of_one_sequence_has_no_padding(candidate, reference, rng):
    expect_call(candidate, reference, "pad_batch", _sequences(rng, 1, 1, 8), pad_id=3)


@pytest.mark.exercise("pad_batch")
@pytest.mark.hidden
def test_pad_batch_pads_an_empty_sequence_entirely(candidate, reference, rng):
    sequences = _sequences(rng, 2, 2, 5)
    sequences.insert(_randint(rng, 0, 2), [])
    expect_call(candidate, reference, "pad_batch", sequences, pad_id=_randint(rng, 1, 9))


@pytest.mark.exercise("pad_batch")
@pytest.mark.hidden
def test_pad_batch_of_no_sequences_raises_valueerror(candidate, reference, rng):
    expect_working(candidate, reference, "pad_batch", _sequences(rng, 3, 1, 5), pad_id=_randint(rng, 1, 9))
    expect_raises(candidate, "pad_batch", ValueError, [])


# ---- merge_pair --------------------------------------------------------------------------------

def _ids_with_pair(rng: torch.Generator, length: int, alphabet: int) -> tuple[list[int], tuple[int, int]]:
    """`length` ids over a small alphabet (so pairs repeat) and a pair that occurs in them."""
    ids = torch.randint(0, alphabet, (length,), generator=rng).tolist()
    k = _randint(rng, 0, length - 2)
    return ids, (ids[k], ids[k + 1])


@pytest.mark.exercise("merge_pair")
@pytest.mark.points(2)
def test_merge_pair_replaces_every_occurrence_of_the_pair(candidate, reference, rng):
    ids, pair = _ids_with_pair(rng, _randint(rng, 20, 40), 3)
    expect_call(candidate, reference, "merge_pair", ids, pair, _randint(rng, 100, 200), atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
def test_merge_pair_in_a_run_of_one_token_merges_leftmost_first(candidate, reference, rng):
    token = _randint(rng, 1, 50)
    ids = [token] * (2 * _randint(rng, 1, 4) + 1)                 # an odd run: one token is left over
    expect_call(candidate, reference, "merge_pair", ids, (token, token), _randint(rng, 100, 200), atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden
def test_merge_pair_keeps_an_unmatched_last_token(candidate, reference, rng):
    a, b, c = (_randint(rng, 1, 9) * 3 + offset for offset in range(3))   # three distinct ids
    ids = [a, b, c, a, b, c, a]
    expect_call(candidate, reference, "merge_pair", ids, (a, b), _randint(rng, 100, 200), atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden
def test_merge_pair_of_short_inputs(candidate, reference, rng):
    new_id = _randint(rng, 100, 200)
    for ids in ([], [5], [5, 6], [6, 5, 6]):
        expect_call(candidate, reference, "merge_pair", ids, (5, 6), new_id, atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden
def test_merge_pair_over_a_long_sequence(candidate, reference, rng):
    ids, pair = _ids_with_pair(rng, 2000, 4)
    expect_call(candidate, reference, "merge_pair", ids, pair, _randint(rng, 100, 200), atol=0.0, rtol=0.0)
