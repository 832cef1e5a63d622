"""Typical mistakes in tokens.py: encode and pad_batch."""
from __future__ import annotations

import torch

from grader.contract import mistake


@mistake(target="encode", id="encode-raises-on-unknown", hint={
    "en": "An unknown token must not stop encoding: when a token is missing from the vocabulary, "
          "look up the id of `unk_token` instead (only raise ValueError when `unk_token` is missing too).",
    "zh": "遇到未知 token 时不应中断编码：token 不在词表中时，应改用 `unk_token` 的 id"
          "（只有当 `unk_token` 也不在词表中时才抛出 ValueError）。"})
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab[token] for token in tokens]


@mistake(target="encode", id="encode-unk-is-zero", hint={
    "en": "Unknown tokens were given id 0, as if `unk_token` always had id 0. Look up the id of "
          "`unk_token` in the vocabulary: it can be any number.",
    "zh": "你把未知 token 的 id 设成了 0，好像 `unk_token` 的 id 总是 0。请在词表中查找 `unk_token` 的 id：它可以是任何数。"})
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab.get(token, 0) for token in tokens]


@mistake(target="encode", id="encode-drops-unknown", hint={
    "en": "Unknown tokens were dropped, so the output is shorter than the input. Every token needs "
          "one id: replace an unknown one by the id of `unk_token`.",
    "zh": "你丢弃了未知 token，输出因此比输入短。每个 token 都要对应一个 id：未知 token 应替换为 `unk_token` 的 id。"})
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab[token] for token in tokens if token in vocab]


@mistake(target="encode", id="encode-ignores-unk-argument", hint={
    "en": "The unknown token was hard-coded as \"<UNK>\". Use the `unk_token` argument: callers may "
          "name their unknown token differently, e.g. \"[UNK]\".",
    "zh": "你把未知 token 写死成了 \"<UNK>\"。请使用参数 `unk_token`：调用者可能用别的名字，例如 \"[UNK]\"。"})
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab[token] if token in vocab else vocab["<UNK>"] for token in tokens]


@mistake(target="pad_batch", id="pad-mask-true-at-padding", hint={
    "en": "The mask is inverted: it must be True at real tokens and False at padding "
          "(attention keeps the True positions).",
    "zh": "掩码反了：真实 token 处应为 True，填充处应为 False（注意力保留为 True 的位置）。"})
def pad_batch(sequences, pad_id=0):
    if len(sequences) == 0:
        raise ValueError("empty batch")
    max_len = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), max_len), pad_id, dtype=torch.long)
    mask = torch.ones((len(sequences), max_len), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids[b, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[b, : len(seq)] = False
    return ids, mask


@mistake(target="pad_batch", id="pad-left-padding", hint={
    "en": "The padding was put on the left. This exercise pads on the right: each row starts with its "
          "real tokens, and the padding follows them.",
    "zh": "你把填充放在了左边。本练习要求右填充：每一行先放真实 token，填充跟在后面。"})
def pad_batch(sequences, pad_id=0):
    if len(sequences) == 0:
        raise ValueError("empty batch")
    max_len = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), max_len), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), max_len), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        if seq:
            ids[b, max_len - len(seq):] = torch.tensor(seq, dtype=torch.long)
            mask[b, max_len - len(seq):] = True
    return ids, mask


@mistake(target="pad_batch", id="pad-ignores-pad-id", hint={
    "en": "The padding is always 0. Fill the padded places with the `pad_id` argument: a vocabulary may "
          "give its padding token any id.",
    "zh": "你的填充值总是 0。请用参数 `pad_id` 填充：词表可以给填充 token 任意 id。"})
def pad_batch(sequences, pad_id=0):
    if len(sequences) == 0:
        raise ValueError("empty batch")
    max_len = max(len(seq) for seq in sequences)
    ids = torch.zeros((len(sequences), max_len), dtype=torch.long)
    mask = torch.zeros((len(sequences), max_len), dtype=torch.bool)
    for b, seq in enumerate(sequences):
        ids[b, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[b, : len(seq)] = True
    return ids, mask


@mistake(target="pad_batch", id="pad-mask-not-bool", hint={
    "en": "The mask holds numbers (0 and 1) instead of booleans. Return a torch.bool tensor: it is used "
          "to select positions, and masked_fill needs booleans.",
    "zh": "掩码里存的是数字（0 和 1），而不是布尔值。请返回 torch.bool 张量：它用来选择位置，masked_fill 需要布尔值。"})
def pad_batch(sequences, pad_id=0):
    if len(sequences) == 0:
        raise ValueError("empty batch")
    max_len = max(len(seq) for seq in sequences)
    ids = torch.full((len(sequences), max_len), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), max_len), dtype=torch.long)
    for b, seq in enumerate(sequences):
        ids[b, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[b, : len(seq)] = 1
    return ids, mask


@mistake(target="merge_pair", id="merge-first-only", hint={
    "en": "Only the first occurrence of the pair was merged. One BPE merge replaces EVERY occurrence "
          "of the pair in the sequence (left to right, without overlaps), not just the first one.",
    "zh": "你只合并了该 token 对的第一次出现。一次 BPE 合并要替换序列中该 token 对的每一次出现"
          "（从左到右、互不重叠），而不只是第一次。"})
def merge_pair(ids, pair, new_id):
    for k in range(len(ids) - 1):
        if (ids[k], ids[k + 1]) == tuple(pair):
            return ids[:k] + [new_id] + ids[k + 2:]
    return list(ids)


@mistake(target="merge_pair", id="merge-keeps-second", hint={
    "en": "After emitting the merged id you moved on by one position only, so the second token of the "
          "pair was emitted again. Skip both tokens of a matched pair (advance by 2).",
    "zh": "输出合并后的 id 之后你只前进了一个位置，于是 token 对的第二个 token 又被输出了一次。"
          "匹配到 token 对时应跳过这两个 token（前进 2 步）。"})
def merge_pair(ids, pair, new_id):
    out = []
    k = 0
    while k < len(ids):
        if k + 1 < len(ids) and (ids[k], ids[k + 1]) == tuple(pair):
            out.append(new_id)
        else:
            out.append(ids[k])
        k += 1
    return out


@mistake(target="merge_pair", id="merge-drops-last", hint={
    "en": "The last token disappeared when it was not part of a merged pair: a loop over "
          "range(len(ids) - 1) never emits ids[-1]. Emit every token that is not merged, the last one too.",
    "zh": "当最后一个 token 不属于被合并的 token 对时，它被丢掉了：遍历 range(len(ids) - 1) 的循环永远不会输出 ids[-1]。"
          "凡是没有被合并的 token 都要输出，最后一个也不例外。"})
def merge_pair(ids, pair, new_id):
    out = []
    k = 0
    while k < len(ids) - 1:
        if (ids[k], ids[k + 1]) == tuple(pair):
            out.append(new_id)
            k += 2
        else:
            out.append(ids[k])
            k += 1
    return out


@mistake(target="merge_pair", id="merge-right-to-left", hint={
    "en": "Overlapping matches were resolved from the right: [1, 1, 1] with the pair (1, 1) gave [1, 9]. "
          "Scan left to right so that the leftmost match wins: the result is [9, 1].",
    "zh": "你从右边开始处理重叠的匹配：[1, 1, 1] 与 token 对 (1, 1) 得到了 [1, 9]。"
          "应从左到右扫描，让最左边的匹配优先：结果是 [9, 1]。"})
def merge_pair(ids, pair, new_id):
    out = []
    k = len(ids) - 1
    while k >= 0:
        if k >= 1 and (ids[k - 1], ids[k]) == tuple(pair):
            out.append(new_id)
            k -= 2
        else:
            out.append(ids[k])
            k -= 1
    return out[::-1]


@mistake(target="merge_pair", id="merge-joins-digits-as-text", hint={
    "en": "The ids were merged as text (joined with spaces, then str.replace): digits of neighbouring ids run "
          "together, so [11, 2] with the pair (1, 2) became [17]. Compare the ids themselves, two neighbours at a "
          "time, as numbers.",
    "zh": "你把 id 当作文本来合并（用空格拼接，再 str.replace）：相邻 id 的数字会连在一起，"
          "于是 [11, 2] 与 token 对 (1, 2) 变成了 [17]。应把 id 当作数，逐对比较相邻的两个 id 本身。"})
def merge_pair(ids, pair, new_id):
    text = " " + " ".join(str(i) for i in ids) + " "
    text = text.replace(f"{pair[0]} {pair[1]}", str(new_id))
    return [int(part) for part in text.split()]


@mistake(target="merge_pair", id="merge-changes-the-input", hint={
    "en": "merge_pair changed the caller's list in place (ids[k:k + 2] = [new_id], ids.pop, ...). The contract "
          "says the input is not changed: the caller may still need the old ids. Build a new list and return it.",
    "zh": "merge_pair 原地修改了调用者的列表（ids[k:k + 2] = [new_id]、ids.pop 等）。约定要求不修改输入："
          "调用者可能还需要原来的 id。请构造一个新列表并返回它。"})
def merge_pair(ids, pair, new_id):
    k = 0
    while k < len(ids):
        if k + 1 < len(ids) and (ids[k], ids[k + 1]) == tuple(pair):
            ids[k:k + 2] = [new_id]
        k += 1
    return ids
