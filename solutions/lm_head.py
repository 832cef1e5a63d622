"""The language-model head: hidden states to logits, and tying it to the input embedding."""
from __future__ import annotations

import torch
import torch.nn as nn


def lm_logits(hidden: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Score every vocabulary token at every position.

    Args:
        hidden: hidden states, shape [B, S, D].
        weight: the output (unembedding) matrix, shape [V, D]: one row per token,
            the same layout as an embedding table and as nn.Linear(D, V).weight.

    Returns:
        Logits of shape [B, S, V] and hidden's dtype: logits[b, s, v] = hidden[b, s] . weight[v],
        i.e. hidden @ weight.T.
    """
    # BEGIN SOLUTION
    return hidden @ weight.T  # [B, S, D] @ [D, V] -> [B, S, V]
    # END SOLUTION


def count_parameters(vocab_size: int, d_model: int, tied: bool) -> int:
    """Count the parameters of an input embedding [V, D] plus a bias-free LM head [V, D].

    Args:
        vocab_size: V.
        d_model: D.
        tied: True when the head reuses the embedding's weight (one shared tensor).

    Returns:
        The number of distinct trainable numbers, as an int: a shared weight counts once.
    """
    # BEGIN SOLUTION
    table = vocab_size * d_model
    return table if tied else 2 * table
    # END SOLUTION


class TiedLM(nn.Module):
    """The smallest tied language model: embed the ids, then score them with the same matrix.

    Attributes:
        token_embedding: nn.Embedding(vocab_size, d_model).
        lm_head: nn.Linear(d_model, vocab_size, bias=False) whose weight IS token_embedding.weight
            (one nn.Parameter, not a copy: changing one changes the other, and
            model.parameters() lists it once).

    forward(input_ids): input_ids torch.long [B, S] -> logits [B, S, vocab_size] (float32),
    logits[b, s] = E @ E[input_ids[b, s]] where E is the shared [V, D] weight.
    """

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        # BEGIN SOLUTION
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.lm_head.weight = self.token_embedding.weight  # share the Parameter itself
        # END SOLUTION

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        # BEGIN SOLUTION
        hidden = self.token_embedding(input_ids)  # [B, S] -> [B, S, D]
        return self.lm_head(hidden)               # [B, S, D] -> [B, S, V]
        # END SOLUTION


def next_token_loss(logits: torch.Tensor, input_ids: torch.Tensor, ignore_id: int | None = None) -> torch.Tensor:
    """The language-modelling loss: cross-entropy of each position's logits against the next token.

    Args:
        logits: [B, S, V], the scores the model gives at every position.
        input_ids: [B, S], the token ids the logits were computed from.
        ignore_id: targets equal to this id (e.g. the padding id) do not count; None counts all.

    Returns:
        A 0-dim tensor in logits' dtype: the mean, over every (b, t) with t < S-1 whose target
        input_ids[b, t+1] is not ignore_id, of -log softmax(logits[b, t])[input_ids[b, t+1]].
        Position t predicts token t+1, so the last position has no target. Computed stably
        (log_softmax, not log(softmax)): large logits give a finite loss.

    Raises:
        ValueError: no target is left (S < 2, or every target is ignore_id).
    """
    # BEGIN SOLUTION
    predictions = logits[:, :-1]                                       # [B, S-1, V]: t predicts t+1
    targets = input_ids[:, 1:]                                         # [B, S-1]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("next_token_loss has no target left: need S >= 2 and a target that is not ignore_id")
    log_probs = torch.log_softmax(predictions, dim=-1)                 # [B, S-1, V], stable
    safe = targets.masked_fill(~keep, 0)                               # ignored ids may be out of range
    picked = log_probs.gather(-1, safe.unsqueeze(-1)).squeeze(-1)      # [B, S-1]
    return -picked[keep].mean()
    # END SOLUTION
