"""Typical mistakes in lm_head.py: lm_logits, count_parameters, TiedLM."""
from __future__ import annotations

import torch
import torch.nn as nn

from grader.contract import mistake


@mistake(target="lm_logits", id="logits-softmax", hint={
    "en": "You returned probabilities (a softmax) instead of logits. The LM head gives raw scores; "
          "softmax comes later, inside the loss or at sampling time.",
    "zh": "你返回的是概率（做了 softmax），而不是 logits。LM head 输出原始分数；softmax 在之后的损失函数或采样中才做。"})
def lm_logits(hidden, weight):
    return torch.softmax(hidden @ weight.T, dim=-1)


@mistake(target="lm_logits", id="logits-log-softmax", hint={
    "en": "You returned log-probabilities (log-softmax) instead of logits. The LM head gives raw scores: "
          "one dot product of the hidden state with each token's row, nothing more.",
    "zh": "你返回的是对数概率（log-softmax），而不是 logits。LM head 只输出原始分数：隐藏状态与每个 token 那一行的点积，仅此而已。"})
def lm_logits(hidden, weight):
    return torch.log_softmax(hidden @ weight.T, dim=-1)


@mistake(target="lm_logits", id="logits-scaled-by-sqrt-d", hint={
    "en": "The scores were divided by sqrt(D). That scaling belongs to attention scores; the LM head "
          "is a plain product with the transposed weight.",
    "zh": "你把分数除以了 sqrt(D)。这种缩放属于注意力分数；LM head 只是与转置权重的普通乘积。"})
def lm_logits(hidden, weight):
    return hidden @ weight.T / hidden.shape[-1] ** 0.5


@mistake(target="count_parameters", id="count-tied-twice", hint={
    "en": "With tied weights the embedding and the head share ONE matrix, so it is counted once. "
          "Only untied models have two V x D matrices.",
    "zh": "权重绑定时，嵌入层和 LM head 共用同一个矩阵，只能算一次。只有不绑定时才有两个 V × D 矩阵。"})
def count_parameters(vocab_size, d_model, tied):
    return 2 * vocab_size * d_model


@mistake(target="count_parameters", id="count-head-bias", hint={
    "en": "You added a bias of V numbers to the head. The head here has no bias (bias=False): "
          "count only the V x D matrices.",
    "zh": "你给 LM head 加上了 V 个偏置参数。这里的 LM head 没有偏置（bias=False）：只数 V × D 的矩阵。"})
def count_parameters(vocab_size, d_model, tied):
    table = vocab_size * d_model
    return (table if tied else 2 * table) + vocab_size


@mistake(target="count_parameters", id="count-tied-flag-inverted", hint={
    "en": "The two cases are swapped: tied=True means one shared matrix (V x D), tied=False means "
          "two separate ones (2 x V x D).",
    "zh": "两种情况弄反了：tied=True 表示共用一个矩阵（V × D），tied=False 表示两个独立矩阵（2 × V × D）。"})
def count_parameters(vocab_size, d_model, tied):
    table = vocab_size * d_model
    return 2 * table if tied else table


@mistake(target="TiedLM", id="tied-copied-weight", hint={
    "en": "The head got a COPY of the embedding weight: they are equal at the start but drift apart as soon "
          "as one is trained. Assign the embedding's Parameter itself to lm_head.weight.",
    "zh": "LM head 拿到的是嵌入权重的一个副本：开始时相等，但一旦训练就会分开。应把嵌入层的那个 Parameter 本身赋给 lm_head.weight。"})
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = nn.Parameter(self.token_embedding.weight.detach().clone())

    def forward(self, input_ids):
        return self.lm_head(self.token_embedding(input_ids))


@mistake(target="TiedLM", id="tied-not-tied", hint={
    "en": "The embedding and the head have separate weights: nothing ties them. Make lm_head.weight "
          "the very same Parameter as token_embedding.weight.",
    "zh": "嵌入层和 LM head 各有各的权重，没有绑定。应让 lm_head.weight 就是 token_embedding.weight 这同一个 Parameter。"})
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        return self.lm_head(self.token_embedding(input_ids))


@mistake(target="TiedLM", id="tied-head-with-bias", hint={
    "en": "The head has a bias (nn.Linear adds one unless told otherwise), so the logits are shifted. "
          "Create the head with bias=False.",
    "zh": "LM head 带了偏置（nn.Linear 默认会加），所以 logits 被平移了。创建 LM head 时请指定 bias=False。"})
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)
        self.lm_head.weight = self.token_embedding.weight

    def forward(self, input_ids):
        return self.lm_head(self.token_embedding(input_ids))


@mistake(target="TiedLM", id="tied-returns-probabilities", hint={
    "en": "forward returned probabilities (a softmax). A language model's forward returns logits; "
          "the softmax belongs to the loss or to sampling.",
    "zh": "forward 返回的是概率（做了 softmax）。语言模型的 forward 应返回 logits；softmax 属于损失函数或采样。"})
class TiedLM(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight

    def forward(self, input_ids):
        return torch.softmax(self.lm_head(self.token_embedding(input_ids)), dim=-1)


@mistake(target="next_token_loss", id="loss-not-shifted", hint={
    "en": "Position t was scored against token t itself, so the model is asked to copy its input. "
          "Shift by one: logits[:, t] predicts input_ids[:, t+1] (drop the last logits and the first id).",
    "zh": "你把位置 t 的 logits 与第 t 个 token 本身比较，相当于要求模型复制输入。应错开一位：logits[:, t] 预测 "
          "input_ids[:, t+1]（去掉最后一个位置的 logits 和第一个 id）。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits, dim=-1)
    picked = log_probs.gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].mean()


@mistake(target="next_token_loss", id="loss-counts-ignored", hint={
    "en": "Targets equal to ignore_id (padding) still counted in the mean. Leave out every (b, t) whose "
          "target input_ids[b, t+1] is ignore_id, and average over the targets that remain.",
    "zh": "等于 ignore_id（填充）的目标仍被计入了平均值。应去掉目标 input_ids[b, t+1] 等于 ignore_id 的每个 (b, t)，"
          "只对剩下的目标求平均。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    if targets.numel() == 0:
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    picked = log_probs.gather(-1, targets.clamp(0, logits.shape[-1] - 1).unsqueeze(-1)).squeeze(-1)
    return -picked.mean()


@mistake(target="next_token_loss", id="loss-log-of-softmax", hint={
    "en": "log(softmax(x)) overflows: with large logits softmax rounds small probabilities to 0 and the log "
          "gives -inf. Use torch.log_softmax (or subtract the row's max before exponentiating).",
    "zh": "log(softmax(x)) 在数值上不稳定：logits 很大时 softmax 会把小概率舍入为 0，取对数得到 -inf。"
          "应使用 torch.log_softmax（或先减去该行的最大值再取指数）。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    probs = torch.exp(logits[:, :-1]) / torch.exp(logits[:, :-1]).sum(dim=-1, keepdim=True)
    picked = torch.log(probs).gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].mean()


@mistake(target="next_token_loss", id="loss-summed", hint={
    "en": "The losses were summed, not averaged: the value then grows with the batch and the sequence "
          "length. Take the mean over the targets that count.",
    "zh": "你把各个损失相加而不是求平均：这样损失值会随批大小和序列长度增长。应对计入的目标求平均。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    picked = log_probs.gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].sum()


@mistake(target="next_token_loss", id="loss-always-float32", hint={
    "en": "The loss was always computed in float32 (e.g. logits.float() or a float32 buffer), so float64 logits "
          "give a float32 loss. The contract returns a tensor in the logits' dtype: compute in that dtype.",
    "zh": "损失总是用 float32 计算（例如 logits.float() 或 float32 的缓冲区），于是 float64 的 logits 得到 float32 的损失。"
          "约定要求返回与 logits 相同 dtype 的张量：请在该 dtype 中计算。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    picked = log_probs.gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].mean()


@mistake(target="next_token_loss", id="loss-no-target-unchecked", hint={
    "en": "With no target left (S < 2, or every target equal to ignore_id) the mean of nothing was returned (NaN). "
          "The contract raises ValueError there: a NaN loss would silently poison training.",
    "zh": "没有剩下任何目标时（S < 2，或所有目标都等于 ignore_id），你返回了空集合的平均值（NaN）。"
          "约定要求此时抛出 ValueError：NaN 损失会悄悄毁掉训练。"})
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    picked = log_probs.gather(-1, targets.masked_fill(~keep, 0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].mean()
