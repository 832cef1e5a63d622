"""The public self-checks of this course's exercises (a coursegen plugin module).

Each exercise has a `SelfCheckSpec`: a few `Case`s and a few `Property`s. Both are
Python snippets that use only torch, `math` and the exercise's own name, so the very same
snippet runs twice:
  - at build time, with the reference solution bound to the name: a case's return value
    becomes the expected value embedded in the notebook (coursegen/selfcheck_code.py);
  - in the student's notebook, with the student's definition bound to it.
Properties are statements that call `_expect(condition, shown=None)`,
`_expect_close(actual, expected)` or `_expect_raises(ErrorType, function)` (defined in the
notebook's self-check tools cell); what they state is their bilingual label.

These checks are public by design: small, fixed inputs. The grader's hidden checks draw
their inputs from a secret seed and never appear here.
"""
from __future__ import annotations

from coursegen.plugin import Case, Property, SelfCheckSpec, selfchecks


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


selfchecks(
    SelfCheckSpec("encode", cases=(
        Case(_t("known tokens", "已知 token"),
             'return encode(["the", "cat", "sat"], {"<UNK>": 0, "the": 1, "cat": 2, "sat": 3})'),
        Case(_t("an unknown token maps to <UNK>", "未知 token 映射到 <UNK>"),
             'return encode(["the", "dog", "the"], {"<UNK>": 0, "the": 1, "cat": 2})'),
        Case(_t("a custom unk_token", "自定义 unk_token"),
             'return encode(["a", "zebra"], {"a": 5, "[unk]": 9}, unk_token="[unk]")'),
    ), properties=(
        Property(_t("an unknown token without unk_token in the vocabulary raises ValueError",
                    "词表中没有 unk_token 时，未知 token 应引发 ValueError"),
                 '_expect_raises(ValueError, lambda: encode(["zebra"], {"a": 0}))'),
    )),
    SelfCheckSpec("pad_batch", cases=(
        Case(_t("three sequences, default pad_id", "三个序列，默认 pad_id"),
             "return pad_batch([[5, 6, 7], [8], [9, 10]])"),
        Case(_t("pad_id=-1", "pad_id=-1"),
             "return pad_batch([[1, 2], [3, 4, 5, 6]], pad_id=-1)"),
    ), properties=(
        Property(_t("an empty batch raises ValueError", "空批次应引发 ValueError"),
                 "_expect_raises(ValueError, lambda: pad_batch([]))"),
        Property(_t("the mask counts the real tokens of each sequence", "掩码中 True 的个数等于每个序列的真实长度"),
                 "ids, mask = pad_batch([[1], [2, 3, 4], [5, 6]])\n"
                 "_expect(mask.dtype == torch.bool, mask.dtype)\n"
                 "_expect(mask.sum(dim=1).tolist() == [1, 3, 2], mask.sum(dim=1).tolist())"),
    )),
    SelfCheckSpec("embedding_lookup", cases=(
        Case(_t("ids of shape [2, 2]", "形状为 [2, 2] 的 ids"),
             "weight = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 4\n"
             "return embedding_lookup(weight, torch.tensor([[0, 3], [2, 2]]))"),
        Case(_t("ids of shape [3]", "形状为 [3] 的 ids"),
             "weight = torch.linspace(-1.0, 1.0, 10).reshape(5, 2)\n"
             "return embedding_lookup(weight, torch.tensor([4, 0, 1]))"),
    ), properties=(
        Property(_t("ids of any shape [...] give [..., D], in the table's dtype",
                    "任意形状 [...] 的 ids 得到 [..., D]，且保持嵌入表的 dtype"),
                 "weight = torch.ones(6, 5, dtype=torch.float64)\n"
                 "out = embedding_lookup(weight, torch.zeros(2, 3, 4, dtype=torch.long))\n"
                 "_expect(tuple(out.shape) == (2, 3, 4, 5), tuple(out.shape))\n"
                 "_expect(out.dtype == torch.float64, out.dtype)"),
    )),
    SelfCheckSpec("one_hot_lookup", cases=(
        Case(_t("ids of shape [2, 2]", "形状为 [2, 2] 的 ids"),
             "weight = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 4\n"
             "return one_hot_lookup(weight, torch.tensor([[0, 3], [2, 2]]))"),
    ), properties=(
        Property(_t("the result keeps the table's dtype (float64 in, float64 out)",
                    "结果保持嵌入表的 dtype（输入 float64，输出 float64）"),
                 "out = one_hot_lookup(torch.ones(4, 2, dtype=torch.float64), torch.tensor([1, 3]))\n"
                 "_expect(out.dtype == torch.float64, out.dtype)"),
        Property(_t("gradient flows back to the table", "梯度能传回嵌入表"),
                 "weight = torch.ones(4, 2, requires_grad=True)\n"
                 "one_hot_lookup(weight, torch.tensor([1, 1, 3])).sum().backward()\n"
                 "_expect(weight.grad is not None)\n"
                 "_expect_close(weight.grad, torch.tensor([[0.0, 0.0], [2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]))"),
    )),
    SelfCheckSpec("embedding_backward", cases=(
        Case(_t("a repeated id", "重复出现的 id"),
             "grad_output = torch.arange(9, dtype=torch.float32).reshape(1, 3, 3)\n"
             "return embedding_backward(torch.tensor([[0, 2, 2]]), grad_output, 4)"),
    ), properties=(
        Property(_t("only the rows of ids that occur get a gradient", "只有出现过的 id 对应的行得到梯度"),
                 "grad = embedding_backward(torch.tensor([1, 3]), torch.ones(2, 4), 6)\n"
                 "_expect(tuple(grad.shape) == (6, 4), tuple(grad.shape))\n"
                 "_expect_close(grad[[0, 2, 4, 5]], torch.zeros(4, 4))\n"
                 "_expect_close(grad[[1, 3]], torch.ones(2, 4))"),
        Property(_t("a repeated id accumulates its gradients", "重复的 id 会累加梯度"),
                 "grad = embedding_backward(torch.tensor([2, 2, 2]), torch.ones(3, 2), 3)\n"
                 "_expect_close(grad[2], torch.tensor([3.0, 3.0]))"),
    )),
    SelfCheckSpec("lm_logits", cases=(
        Case(_t("B=1, S=2, D=3, V=5", "B=1, S=2, D=3, V=5"),
             "hidden = torch.linspace(-1.0, 1.0, 6).reshape(1, 2, 3)\n"
             "weight = torch.arange(15.0).reshape(5, 3) / 10\n"
             "return lm_logits(hidden, weight)"),
    ), properties=(
        Property(_t("[B, S, D] and [V, D] give [B, S, V]", "[B, S, D] 与 [V, D] 得到 [B, S, V]"),
                 "out = lm_logits(torch.zeros(2, 3, 4), torch.zeros(7, 4))\n"
                 "_expect(tuple(out.shape) == (2, 3, 7), tuple(out.shape))"),
    )),
    SelfCheckSpec("count_parameters", cases=(
        Case(_t("V=100, D=16, untied", "V=100, D=16，不绑定"), "return count_parameters(100, 16, False)"),
        Case(_t("V=100, D=16, tied", "V=100, D=16，绑定"), "return count_parameters(100, 16, True)"),
        Case(_t("GPT-2 small sizes, tied", "GPT-2 small 的尺寸，绑定"), "return count_parameters(50257, 768, True)"),
    )),
    SelfCheckSpec("TiedLM", cases=(
        Case(_t("a known embedding table, ids [[0, 4, 2]]", "给定的嵌入表，ids 为 [[0, 4, 2]]"),
             "model = TiedLM(5, 3)\n"
             "with torch.no_grad():\n"
             "    model.token_embedding.weight.copy_(torch.linspace(-1.0, 1.0, 15).reshape(5, 3))\n"
             "return model(torch.tensor([[0, 4, 2]]))"),
    ), properties=(
        Property(_t("the LM head and the embedding share one weight (counted once in parameters())",
                    "LM head 与嵌入层共享同一个权重（parameters() 中只计一次）"),
                 "model = TiedLM(6, 4)\n"
                 "_expect(model.lm_head.weight is model.token_embedding.weight)\n"
                 "_expect(sum(p.numel() for p in model.parameters()) == 24, sum(p.numel() for p in model.parameters()))"),
        Property(_t("writing the embedding table changes the logits", "修改嵌入表后 logits 随之改变"),
                 "model = TiedLM(4, 2)\n"
                 "table = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])\n"
                 "with torch.no_grad():\n"
                 "    model.token_embedding.weight.copy_(table)\n"
                 "_expect_close(model(torch.tensor([[3]]))[0, 0], table @ table[3])"),
        Property(_t("the LM head has no bias", "LM head 没有偏置"),
                 "_expect(TiedLM(4, 2).lm_head.bias is None)"),
    )),
    SelfCheckSpec("self_attention", cases=(
        Case(_t("B=1, S=3, D=4", "B=1, S=3, D=4"),
             "x = torch.linspace(-1.0, 1.0, 12).reshape(1, 3, 4)\n"
             "w_q = torch.linspace(-0.5, 0.5, 16).reshape(4, 4)\n"
             "w_k = w_q.flip(0)\n"
             "w_v = torch.eye(4) + 0.1\n"
             "return self_attention(x, w_q, w_k, w_v)"),
    ), properties=(
        Property(_t("with zero queries every output is the mean of the values",
                    "query 全为零时，每个输出都是值向量的平均"),
                 "x = torch.linspace(-2.0, 2.0, 24).reshape(2, 3, 4)\n"
                 "w_v = torch.linspace(0.0, 1.0, 16).reshape(4, 4)\n"
                 "out = self_attention(x, torch.zeros(4, 4), torch.eye(4), w_v)\n"
                 "_expect_close(out, (x @ w_v).mean(dim=1, keepdim=True).expand(2, 3, 4))"),
        Property(_t("without positions, permuting the sequence permutes the output",
                    "没有位置信息时，打乱序列只会同样地打乱输出"),
                 "x = torch.linspace(-1.0, 1.0, 12).reshape(1, 3, 4)\n"
                 "w = torch.linspace(-0.5, 0.5, 16).reshape(4, 4)\n"
                 "order = torch.tensor([2, 0, 1])\n"
                 "_expect_close(self_attention(x[:, order], w, w.T, w)[:, :], self_attention(x, w, w.T, w)[:, order])"),
    )),
    SelfCheckSpec("sinusoidal_encoding", cases=(
        Case(_t("seq_len=4, d_model=6", "seq_len=4, d_model=6"), "return sinusoidal_encoding(4, 6)"),
        Case(_t("seq_len=3, d_model=4, base=100", "seq_len=3, d_model=4, base=100"),
             "return sinusoidal_encoding(3, 4, base=100.0)"),
    ), properties=(
        Property(_t("an odd d_model raises ValueError", "d_model 为奇数时引发 ValueError"),
                 "_expect_raises(ValueError, lambda: sinusoidal_encoding(4, 5))"),
        Property(_t("position 0 is [0, 1, 0, 1, ...]", "位置 0 的编码是 [0, 1, 0, 1, ...]"),
                 "_expect_close(sinusoidal_encoding(2, 8)[0], torch.tensor([0.0, 1.0] * 4))"),
    )),
    SelfCheckSpec("LearnedPositionalEmbedding", cases=(
        Case(_t("a known table, x of shape [2, 4, 3]", "给定的位置表，x 的形状为 [2, 4, 3]"),
             "module = LearnedPositionalEmbedding(5, 3)\n"
             "with torch.no_grad():\n"
             "    module.position_embedding.weight.copy_(torch.linspace(-1.0, 1.0, 15).reshape(5, 3))\n"
             "return module(torch.arange(24, dtype=torch.float32).reshape(2, 4, 3) / 8)"),
    ), properties=(
        Property(_t("the table is nn.Embedding(max_seq_len, d_model) named position_embedding",
                    "位置表是名为 position_embedding 的 nn.Embedding(max_seq_len, d_model)"),
                 "module = LearnedPositionalEmbedding(5, 3)\n"
                 "_expect(isinstance(module.position_embedding, torch.nn.Embedding), type(module.position_embedding).__name__)\n"
                 "_expect(tuple(module.position_embedding.weight.shape) == (5, 3), tuple(module.position_embedding.weight.shape))"),
        Property(_t("a sequence longer than max_seq_len raises ValueError", "序列长度超过 max_seq_len 时引发 ValueError"),
                 "module = LearnedPositionalEmbedding(5, 3)\n"
                 "_expect_raises(ValueError, lambda: module(torch.zeros(1, 6, 3)))"),
        Property(_t("only the rows of positions 0..S-1 get a gradient", "只有位置 0..S-1 对应的行得到梯度"),
                 "module = LearnedPositionalEmbedding(5, 3)\n"
                 "module(torch.zeros(2, 2, 3)).sum().backward()\n"
                 "_expect_close(module.position_embedding.weight.grad[2:], torch.zeros(3, 3))\n"
                 "_expect_close(module.position_embedding.weight.grad[:2], torch.full((2, 3), 2.0))"),
    )),
    SelfCheckSpec("relative_positions", cases=(
        Case(_t("seq_len=4", "seq_len=4"), "return relative_positions(4)"),
    ), properties=(
        Property(_t("[i, j] = -[j, i] and the result is a LongTensor", "[i, j] = -[j, i]，且结果是 LongTensor"),
                 "r = relative_positions(6)\n"
                 "_expect(r.dtype == torch.long, r.dtype)\n"
                 "_expect_close(r + r.T, torch.zeros(6, 6, dtype=torch.long))"),
    )),
    SelfCheckSpec("apply_rope", cases=(
        Case(_t("x of shape [1, 2, 3, 8], default positions", "x 的形状为 [1, 2, 3, 8]，默认位置"),
             "x = torch.linspace(-1.0, 1.0, 48).reshape(1, 2, 3, 8)\n"
             "return apply_rope(x)"),
        Case(_t("positions [5, 5, 0] and base=100", "positions 为 [5, 5, 0]，base=100"),
             "x = torch.linspace(-1.0, 1.0, 12).reshape(1, 1, 3, 4)\n"
             "return apply_rope(x, positions=torch.tensor([5, 5, 0]), base=100.0)"),
    ), properties=(
        Property(_t("the rotation keeps the length of every pair (x[2i], x[2i+1])",
                    "旋转保持每一对 (x[2i], x[2i+1]) 的长度"),
                 "x = torch.linspace(-2.0, 2.0, 96).reshape(1, 2, 6, 8)\n"
                 "y = apply_rope(x)\n"
                 "_expect_close(y.reshape(1, 2, 6, 4, 2).norm(dim=-1), x.reshape(1, 2, 6, 4, 2).norm(dim=-1))"),
        Property(_t("position 0 leaves x unchanged", "位置 0 的向量保持不变"),
                 "x = torch.linspace(-1.0, 1.0, 8).reshape(1, 1, 2, 4)\n"
                 "_expect_close(apply_rope(x, positions=torch.tensor([0, 0])), x)"),
        Property(_t("q.k depends only on the distance between positions", "q·k 只取决于两个位置之间的距离"),
                 "q = torch.linspace(-1.0, 1.0, 8).reshape(1, 1, 1, 8)\n"
                 "k = torch.linspace(1.0, -0.5, 8).reshape(1, 1, 1, 8)\n"
                 "def score(p_q, p_k):\n"
                 "    return (apply_rope(q, torch.tensor([p_q])) * apply_rope(k, torch.tensor([p_k]))).sum()\n"
                 "_expect_close(score(3, 1), score(7, 5))"),
        Property(_t("the result keeps x's dtype (float64 in, float64 out)", "结果保持 x 的 dtype（输入 float64，输出 float64）"),
                 "y = apply_rope(torch.ones(1, 1, 2, 4, dtype=torch.float64))\n"
                 "_expect(y.dtype == torch.float64, y.dtype)"),
    )),
    SelfCheckSpec("alibi_slopes", cases=(
        Case(_t("8 heads (a power of two)", "8 个头（2 的幂）"), "return alibi_slopes(8)"),
        Case(_t("6 heads (not a power of two)", "6 个头（不是 2 的幂）"), "return alibi_slopes(6)"),
    ), properties=(
        Property(_t("slopes are positive float32 values", "斜率是正的 float32 数值"),
                 "s = alibi_slopes(12)\n"
                 "_expect(s.dtype == torch.float32, s.dtype)\n"
                 "_expect(tuple(s.shape) == (12,), tuple(s.shape))\n"
                 "_expect(bool((s > 0).all()), s)"),
    )),
    SelfCheckSpec("alibi_bias", cases=(
        Case(_t("2 heads, seq_len=4", "2 个头，seq_len=4"), "return alibi_bias(2, 4)"),
        Case(_t("3 heads, seq_len=3", "3 个头，seq_len=3"), "return alibi_bias(3, 3)"),
    ), properties=(
        Property(_t("the bias is 0 on the diagonal and symmetric", "偏置在对角线上为 0，且是对称的"),
                 "b = alibi_bias(4, 5)\n"
                 "_expect_close(torch.diagonal(b, dim1=1, dim2=2), torch.zeros(4, 5))\n"
                 "_expect_close(b, b.transpose(1, 2))"),
    )),
    SelfCheckSpec("merge_pair", cases=(
        Case(_t("two occurrences of the pair", "token 对出现两次"), "return merge_pair([5, 6, 7, 5, 6], (5, 6), 9)"),
        Case(_t("a run of three equal tokens: leftmost first", "三个相同 token 连在一起：最左边优先"),
             "return merge_pair([1, 1, 1], (1, 1), 9)"),
        Case(_t("the pair does not occur", "token 对没有出现"), "return merge_pair([3, 4, 3], (4, 4), 9)"),
    ), properties=(
        Property(_t("the input list is not changed", "输入的列表不会被修改"),
                 "ids = [5, 6, 5, 6]\n"
                 "merge_pair(ids, (5, 6), 9)\n"
                 "_expect(ids == [5, 6, 5, 6], ids)"),
        Property(_t("an unmatched last token is kept", "没有被合并的最后一个 token 会保留"),
                 "_expect(merge_pair([5, 6, 7], (5, 6), 9) == [9, 7], merge_pair([5, 6, 7], (5, 6), 9))"),
    )),
    SelfCheckSpec("causal_mask", cases=(
        Case(_t("seq_len=4", "seq_len=4"), "return causal_mask(4)"),
        Case(_t("seq_len=1", "seq_len=1"), "return causal_mask(1)"),
    ), properties=(
        Property(_t("a BoolTensor with S(S+1)/2 True entries", "是 BoolTensor，且恰有 S(S+1)/2 个 True"),
                 "m = causal_mask(6)\n"
                 "_expect(m.dtype == torch.bool, m.dtype)\n"
                 "_expect(int(m.sum()) == 21, int(m.sum()))"),
        Property(_t("seq_len=0 gives an empty [0, 0] mask; a negative seq_len raises ValueError",
                    "seq_len=0 得到空的 [0, 0] 掩码；seq_len 为负时引发 ValueError"),
                 "_expect(tuple(causal_mask(0).shape) == (0, 0), tuple(causal_mask(0).shape))\n"
                 "_expect_raises(ValueError, lambda: causal_mask(-1))"),
    )),
    SelfCheckSpec("next_token_loss", cases=(
        Case(_t("B=1, S=3, V=4", "B=1, S=3, V=4"),
             "logits = torch.linspace(-2.0, 2.0, 12).reshape(1, 3, 4)\n"
             "return next_token_loss(logits, torch.tensor([[0, 3, 1]]))"),
        Case(_t("padding id 0 ignored", "忽略填充 id 0"),
             "logits = torch.linspace(-1.0, 3.0, 24).reshape(2, 3, 4)\n"
             "return next_token_loss(logits, torch.tensor([[2, 1, 3], [1, 2, 0]]), ignore_id=0)"),
    ), properties=(
        Property(_t("equal logits give ln V", "logits 全相等时损失为 ln V"),
                 "_expect_close(next_token_loss(torch.zeros(2, 5, 7), torch.ones(2, 5, dtype=torch.long)), "
                 "torch.tensor(7.0).log())"),
        Property(_t("large logits still give a finite loss", "logits 很大时损失仍是有限值"),
                 "logits = torch.tensor([[[1000.0, 0.0], [0.0, 1000.0]]])\n"
                 "_expect(bool(torch.isfinite(next_token_loss(logits, torch.tensor([[0, 0]])))))"),
        Property(_t("no target left raises ValueError", "没有可用目标时引发 ValueError"),
                 "_expect_raises(ValueError, lambda: next_token_loss(torch.zeros(1, 1, 3), torch.tensor([[1]])))"),
    )),
    SelfCheckSpec("ntk_base", cases=(
        Case(_t("base 10000, scale 4, head_dim 64", "base 10000，scale 4，head_dim 64"),
             "return ntk_base(10000.0, 4.0, 64)", rtol=1e-9),
        Case(_t("base 500000, scale 8, head_dim 128", "base 500000，scale 8，head_dim 128"),
             "return ntk_base(500000.0, 8.0, 128)", rtol=1e-9),
    ), properties=(
        Property(_t("scale 1 keeps the base", "scale 为 1 时 base 不变"),
                 "_expect_close(ntk_base(10000.0, 1.0, 64), 10000.0)"),
        Property(_t("the slowest pair turns exactly `scale` times slower", "最慢的一对恰好慢 `scale` 倍"),
                 "d, scale = 64, 8.0\n"
                 "_expect_close((ntk_base(10000.0, scale, d) / 10000.0) ** ((d - 2) / d), scale)"),
        Property(_t("scale < 1 or an odd head_dim raises ValueError", "scale < 1 或 head_dim 为奇数时引发 ValueError"),
                 "_expect_raises(ValueError, lambda: ntk_base(10000.0, 0.5, 64))\n"
                 "_expect_raises(ValueError, lambda: ntk_base(10000.0, 2.0, 63))"),
    )),
    SelfCheckSpec("TinyLM", cases=(
        Case(_t("the shape of the logits, position='rope'", "logits 的形状，position='rope'"),
             "return list(TinyLM(11, 16, 2, 8)(torch.zeros(3, 5, dtype=torch.long)).shape)"),
    ), properties=(
        Property(_t("the LM head and the embedding share one weight", "LM head 与嵌入层共享同一个权重"),
                 "model = TinyLM(11, 16, 2, 8)\n"
                 "_expect(model.lm_head.weight is model.token_embedding.weight)"),
        Property(_t("logits at t do not change when later tokens change (every method)",
                    "后面的 token 改变时，位置 t 的 logits 不变（每种方法）"),
                 "ids = torch.tensor([[1, 2, 3, 4, 5, 6]])\n"
                 "later = torch.tensor([[1, 2, 3, 9, 9, 9]])\n"
                 "for method in ('none', 'sinusoidal', 'learned', 'rope', 'alibi'):\n"
                 "    model = TinyLM(11, 16, 2, 8, position=method).double()\n"
                 "    _expect_close(model(ids)[:, :3], model(later)[:, :3])"),
        Property(_t("with position='none', permuting the earlier tokens leaves the last logits unchanged; "
                    "with 'rope' it changes them",
                    "position='none' 时打乱前面的 token 不改变最后一个位置的 logits；'rope' 时会改变"),
                 "ids = torch.tensor([[1, 2, 3, 4, 5, 6]])\n"
                 "permuted = torch.tensor([[3, 1, 5, 2, 4, 6]])\n"
                 "blind = TinyLM(11, 16, 2, 8, position='none').double()\n"
                 "_expect_close(blind(ids)[0, -1], blind(permuted)[0, -1])\n"
                 "aware = TinyLM(11, 16, 2, 8, position='rope').double()\n"
                 "change = float((aware(ids)[0, -1] - aware(permuted)[0, -1]).abs().max())\n"
                 "_expect(change > 1e-10, change)"),
        Property(_t("an unknown position method or a too long sequence raises ValueError",
                    "未知的位置方法或过长的序列引发 ValueError"),
                 "_expect_raises(ValueError, lambda: TinyLM(11, 16, 2, 8, position='absolute'))\n"
                 "_expect_raises(ValueError, lambda: TinyLM(11, 16, 2, 8)(torch.zeros(1, 9, dtype=torch.long)))"),
    )),
)
