"""Token embeddings: a lookup table, the same lookup as a matrix product, and its gradient."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def embedding_lookup(weight: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    """Look up the embedding vector of every id.

    Args:
        weight: the embedding table, shape [V, D] (V tokens, D dimensions), any float dtype.
        input_ids: integer (torch.long) tensor of any shape [...], values in 0..V-1.

    Returns:
        Tensor of shape [..., D] and weight's dtype: out[..., :] = weight[input_ids[...], :].
    """
    # BEGIN SOLUTION
    return weight[input_ids]  # [..., D]
    # END SOLUTION


def one_hot_lookup(weight: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    """The same lookup, computed as a matrix product: one_hot(input_ids, V) @ weight.

    Args:
        weight: the embedding table, shape [V, D], any float dtype.
        input_ids: integer (torch.long) tensor of any shape [...], values in 0..V-1.

    Returns:
        Tensor of shape [..., D] and weight's dtype, equal to embedding_lookup(weight, input_ids).
        Each id becomes a row of V numbers (a 1 at the id, 0 elsewhere) multiplied by weight.
    """
    # BEGIN SOLUTION
    vocab_size = weight.shape[0]
    one_hot = F.one_hot(input_ids, num_classes=vocab_size).to(weight.dtype)  # [..., V]
    return one_hot @ weight                                                  # [..., V] @ [V, D] -> [..., D]
    # END SOLUTION


def embedding_backward(input_ids: torch.Tensor, grad_output: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """The gradient of the loss with respect to the embedding table, given the gradient of the lookup's output.

    Args:
        input_ids: integer (torch.long) tensor of any shape [...], values in 0..vocab_size-1.
        grad_output: the gradient of the loss w.r.t. the lookup's output, shape [..., D].
        vocab_size: V, the number of rows of the table.

    Returns:
        Tensor of shape [V, D] and grad_output's dtype. Row v is the sum of grad_output over every
        position where input_ids == v: an id that appears several times accumulates all of its
        gradients, an id that does not appear gets a row of zeros.
    """
    # BEGIN SOLUTION
    d_model = grad_output.shape[-1]
    grad_weight = torch.zeros(vocab_size, d_model, dtype=grad_output.dtype)        # [V, D]
    grad_weight.index_add_(0, input_ids.reshape(-1), grad_output.reshape(-1, d_model))  # sum rows per id
    return grad_weight
    # END SOLUTION
