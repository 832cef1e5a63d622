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
