"""Typical mistakes in embedding.py: embedding_lookup, one_hot_lookup, embedding_backward."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from grader.contract import mistake


@mistake(target="embedding_lookup", id="lookup-flattens-ids", hint={
    "en": "The ids were flattened, so a [B, S] batch came back as [B*S, D]. The output keeps the shape "
          "of input_ids and adds D at the end.",
    "zh": "你把 id 展平了，于是 [B, S] 的批次变成了 [B*S, D]。输出应保留 input_ids 的形状，并在末尾加上 D 维。"})
def embedding_lookup(weight, input_ids):
    return weight[input_ids.reshape(-1)]


@mistake(target="embedding_lookup", id="lookup-scaled-by-sqrt-d", hint={
    "en": "The vectors were multiplied by sqrt(D). Some Transformers scale embeddings later, in the model, "
          "but the lookup itself returns the table's rows unchanged.",
    "zh": "你把向量乘上了 sqrt(D)。有些 Transformer 会在模型里另外缩放嵌入，但查表本身应原样返回表中的行。"})
def embedding_lookup(weight, input_ids):
    return weight[input_ids] * weight.shape[1] ** 0.5


@mistake(target="embedding_lookup", id="lookup-off-by-one", hint={
    "en": "Each id read the row before it, as if ids started at 1. Ids start at 0: id v is row v of the table.",
    "zh": "每个 id 读到了它前一行，好像 id 从 1 开始。id 从 0 开始：id v 就是表的第 v 行。"})
def embedding_lookup(weight, input_ids):
    return weight[input_ids - 1]


@mistake(target="embedding_lookup", id="lookup-float32-buffer", hint={
    "en": "The result is always float32 because it was collected in a new tensor created without a dtype. "
          "Return the table's dtype (create buffers with dtype=weight.dtype, or index the table directly).",
    "zh": "结果总是 float32，因为你把它收集到一个没指定 dtype 的新张量里。应返回与表相同的 dtype"
          "（新建张量时指定 dtype=weight.dtype，或直接对表做索引）。"})
def embedding_lookup(weight, input_ids):
    flat = input_ids.reshape(-1)
    out = torch.zeros(flat.shape[0], weight.shape[1])
    for n in range(flat.shape[0]):
        out[n] = weight[flat[n]]
    return out.reshape(*input_ids.shape, weight.shape[1])


@mistake(target="one_hot_lookup", id="one-hot-without-num-classes", hint={
    "en": "The one-hot vectors were as long as the largest id in the batch plus one, not V. Give the one-hot "
          "the vocabulary size (the number of rows of weight), so ids that do not appear still have a column.",
    "zh": "你的 one-hot 向量长度是本批最大 id 加一，而不是 V。请把词表大小（weight 的行数）作为 one-hot 的类别数，"
          "这样没出现的 id 也有自己的列。"})
def one_hot_lookup(weight, input_ids):
    return F.one_hot(input_ids).to(weight.dtype) @ weight


@mistake(target="one_hot_lookup", id="one-hot-flattened", hint={
    "en": "The ids were flattened before the one-hot, and the result was never reshaped back: a [B, S] "
          "batch must give [B, S, D].",
    "zh": "你在做 one-hot 之前把 id 展平了，之后没有恢复形状：[B, S] 的批次应得到 [B, S, D]。"})
def one_hot_lookup(weight, input_ids):
    return F.one_hot(input_ids.reshape(-1), weight.shape[0]).to(weight.dtype) @ weight


@mistake(target="one_hot_lookup", id="one-hot-float32", hint={
    "en": "Everything was cast to float32, so a float64 table gives a float32 result. Cast the one-hot to "
          "the table's dtype instead, and keep the table as it is.",
    "zh": "你把所有东西都转成了 float32，于是 float64 的表得到 float32 的结果。应把 one-hot 转成表的 dtype，表本身保持不变。"})
def one_hot_lookup(weight, input_ids):
    return F.one_hot(input_ids, weight.shape[0]).float() @ weight.float()


@mistake(target="embedding_backward", id="backward-overwrites-repeats", hint={
    "en": "When an id appears several times, its gradients must be added up; indexed assignment "
          "(grad[ids] += g) keeps only one of them. Accumulate with a loop, index_add_ or a one-hot product.",
    "zh": "同一个 id 出现多次时，它的梯度要全部相加；带索引的赋值（grad[ids] += g）只保留其中一个。"
          "请用循环、index_add_ 或 one-hot 乘积来累加。"})
def embedding_backward(input_ids, grad_output, vocab_size):
    d_model = grad_output.shape[-1]
    grad_weight = torch.zeros(vocab_size, d_model, dtype=grad_output.dtype)
    grad_weight[input_ids.reshape(-1)] += grad_output.reshape(-1, d_model)
    return grad_weight


@mistake(target="embedding_backward", id="backward-averages-repeats", hint={
    "en": "The gradients of a repeated id were averaged. The lookup uses the row once per occurrence, "
          "so its gradient is the sum over occurrences, not the mean.",
    "zh": "你对重复 id 的梯度取了平均。查表时该行每出现一次就被用一次，所以梯度是所有出现处的和，而不是平均。"})
def embedding_backward(input_ids, grad_output, vocab_size):
    d_model = grad_output.shape[-1]
    flat_ids = input_ids.reshape(-1)
    grad_weight = torch.zeros(vocab_size, d_model, dtype=grad_output.dtype)
    grad_weight.index_add_(0, flat_ids, grad_output.reshape(-1, d_model))
    counts = torch.bincount(flat_ids, minlength=vocab_size).clamp(min=1)
    return grad_weight / counts[:, None].to(grad_output.dtype)


@mistake(target="embedding_backward", id="backward-float32-buffer", hint={
    "en": "The gradient table was created without a dtype, so it is always float32. Create it with "
          "grad_output's dtype: the gradient has the dtype of what flows back.",
    "zh": "梯度表创建时没有指定 dtype，所以总是 float32。请使用 grad_output 的 dtype 创建：梯度的 dtype 与回传的量一致。"})
def embedding_backward(input_ids, grad_output, vocab_size):
    d_model = grad_output.shape[-1]
    flat_ids = input_ids.reshape(-1)
    flat_grad = grad_output.reshape(-1, d_model)
    grad_weight = torch.zeros(vocab_size, d_model)
    for n in range(flat_ids.shape[0]):
        grad_weight[flat_ids[n]] += flat_grad[n]
    return grad_weight
