"""Checks for exercises/tokens.py: encode, pad_batch and merge_pair."""
from __future__ import annotations

import pytest
import torch

from grader.checking import (
    confirmed_by,
    expect_call,
    expect_equal,
    expect_inputs_unchanged,
    expect_raises,
    expect_working,
)


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
@pytest.mark.hidden(en='the `unk_token` argument must name the unknown token (not a hard-coded "<UNK>")',
                    zh='参数 `unk_token` 必须决定未知 token 是哪个（而不是写死的 "<UNK>"）')
def test_encode_uses_the_unk_token_argument(candidate, reference, rng):
    vocab = _vocab(rng, 10, "<UNK>", "[UNK]")
    while 0 in (vocab["<UNK>"], vocab["[UNK]"]):  # neither unknown token may be the default id 0
        vocab = _vocab(rng, 10, "<UNK>", "[UNK]")
    tokens = ["w1", "missing", "w2", "also-missing"]
    expect_call(candidate, reference, "encode", tokens, vocab, unk_token="[UNK]")


@pytest.mark.exercise("encode")
@pytest.mark.hidden(en='an unknown token must raise ValueError when unk_token is not in the vocabulary either',
                    zh='当 unk_token 也不在词表中时，未知 token 必须抛出 ValueError')
def test_encode_raises_valueerror_for_unknown_token_without_unk_in_vocab(candidate, reference, rng):
    vocab = _vocab(rng, 10)
    expect_working(candidate, reference, "encode", ["w3", "w1", "w4"], vocab)    # not a function that always raises
    with_unk = _vocab(rng, 10, "<UNK>")                  # tells apart mistakes that raise alike here
    with confirmed_by(candidate, "encode", [((["w1", "not-in-vocab"], with_unk), {})]):
        expect_raises(candidate, "encode", ValueError, ["w1", "not-in-vocab"], vocab)


@pytest.mark.exercise("encode")
@pytest.mark.hidden(en='no tokens must give an empty list',
                    zh='没有 token 时必须得到空列表')
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
@pytest.mark.hidden(en='a batch of one sequence needs no padding: its mask must be all True',
                    zh='只有一个序列的批次不需要填充：其掩码必须全为 True')
def test_pad_batch_of_one_sequence_has_no_padding(candidate, reference, rng):
    expect_call(candidate, reference, "pad_batch", _sequences(rng, 1, 1, 8), pad_id=3)


@pytest.mark.exercise("pad_batch")
@pytest.mark.hidden(en='an empty sequence in the batch must become a row of pad_id with a mask of False',
                    zh='批次中的空序列必须变成一整行 pad_id，掩码全为 False')
def test_pad_batch_pads_an_empty_sequence_entirely(candidate, reference, rng):
    sequences = _sequences(rng, 2, 2, 5)
    sequences.insert(_randint(rng, 0, 2), [])
    expect_call(candidate, reference, "pad_batch", sequences, pad_id=_randint(rng, 1, 9))


@pytest.mark.exercise("pad_batch")
@pytest.mark.hidden(en='an empty list of sequences must raise ValueError',
                    zh='空的序列列表必须抛出 ValueError')
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
@pytest.mark.hidden(en='a last token that is not part of a pair must be kept',
                    zh='不属于任何 token 对的最后一个 token 必须保留')
def test_merge_pair_keeps_an_unmatched_last_token(candidate, reference, rng):
    a, b, c = (_randint(rng, 1, 9) * 3 + offset for offset in range(3))   # three distinct ids
    ids = [a, b, c, a, b, c, a]
    new_id = _randint(rng, 100, 200)
    with confirmed_by(candidate, "merge_pair", [(([c, a, b, a, b], (a, b), new_id), {})]):   # tells mistakes apart
        expect_call(candidate, reference, "merge_pair", ids, (a, b), new_id, atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden(en='the empty list and lists of one or two ids must be handled',
                    zh='空列表以及只有一两个 id 的列表都必须能处理')
def test_merge_pair_of_short_inputs(candidate, reference, rng):
    new_id = _randint(rng, 100, 200)
    for ids in ([], [5], [5, 6], [6, 5, 6]):
        expect_call(candidate, reference, "merge_pair", ids, (5, 6), new_id, atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden(en='a long sequence of large ids (many digits) must merge every occurrence',
                    zh='由很大的 id（很多位数字）组成的长序列中，每一次出现都必须合并')
def test_merge_pair_over_a_long_sequence(candidate, reference, rng):
    ids, pair = _ids_with_pair(rng, 2000, 4)
    ids = [i * 1_000_003 + 17 for i in ids]                    # ids of many digits
    pair = (pair[0] * 1_000_003 + 17, pair[1] * 1_000_003 + 17)
    expect_call(candidate, reference, "merge_pair", ids, pair, _randint(rng, 10**9, 2 * 10**9), atol=0.0, rtol=0.0)


def _digit_tricks(rng: torch.Generator, length: int) -> tuple[list[int], tuple[int, int]]:
    """Ids whose decimal digits run together when joined as text: with the pair (a, b) of one-digit
    ids, the ids aa, bb, ab, ba next to a and b (e.g. [11, 2] holds the text "1 2" but not the pair)."""
    a = _randint(rng, 1, 8)
    b = a + _randint(rng, 1, 9 - a)
    tricky = [a, b, 11 * a, 11 * b, 10 * a + b, 10 * b + a, 100 * a + b]
    ids = [tricky[i] for i in torch.randint(0, len(tricky), (length,), generator=rng).tolist()]
    ids[:6] = [11 * a, b, a, 11 * b, a, b]                   # "aa b", "a bb" and one real pair
    return ids, (a, b)


@pytest.mark.exercise("merge_pair")
def test_merge_pair_treats_ids_as_numbers_not_digits(candidate, reference, rng):
    ids, pair = _digit_tricks(rng, _randint(rng, 12, 18))
    expect_call(candidate, reference, "merge_pair", ids, pair, _randint(rng, 100, 999), atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
@pytest.mark.hidden(en="ids are numbers, not text: ids of several digits next to the pair's own ids "
                       "(such as 11 beside 2 for the pair (1, 2)) must stay as they are",
                    zh="id 是数而不是文本：与该 token 对的 id 相邻的多位数 id（例如 token 对 (1, 2) 旁边的 11 和 2）必须保持原样")
def test_merge_pair_of_many_ids_of_several_digits(candidate, reference, rng):
    ids, pair = _digit_tricks(rng, 300)
    expect_call(candidate, reference, "merge_pair", ids, pair, _randint(rng, 10**4, 10**6), atol=0.0, rtol=0.0)


@pytest.mark.exercise("merge_pair")
def test_merge_pair_leaves_the_input_list_unchanged(candidate, reference, rng):
    ids, pair = _ids_with_pair(rng, _randint(rng, 10, 16), 3)
    new_id = _randint(rng, 100, 200)
    expect_working(candidate, reference, "merge_pair", list(ids), pair, new_id, atol=0.0, rtol=0.0)
    expect_inputs_unchanged(candidate, reference, "merge_pair", ids, pair, new_id)
