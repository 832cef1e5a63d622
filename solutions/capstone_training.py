"""Train the capstone's TinyLM on a corpus where order matters, once per position method.

The corpus: each sequence repeats a random pattern of `period` distinct tokens
(e.g. 3 7 1 5 3 7 1 5 ...). Once the pattern has been seen, the next token is the token
`period - 1` places back, so a model that knows positions can predict it exactly; a model
without positions sees only the set of earlier tokens (causal attention over a set) and can
only guess among the pattern's other tokens.

Run as a module it prints JSON {"steps": n, "losses": {method: [loss per step]}}, which the
build's figure `capstone_loss_curves` draws; it runs in its own process with one thread and
fixed seeds, so the numbers are the same on every build.

    python -m solutions.capstone_training '{"steps": 300, "methods": ["none", "rope"]}'
"""
from __future__ import annotations

import json
import sys

import torch

from solutions.capstone import POSITION_METHODS, TinyLM
from solutions.lm_head import next_token_loss

VOCAB_SIZE, PERIOD, SEQ_LEN, BATCH = 8, 3, 12, 32
D_MODEL, N_HEADS, LEARNING_RATE = 32, 4, 3e-2


def make_batch(generator: torch.Generator, batch: int = BATCH) -> torch.Tensor:
    """[batch, SEQ_LEN] ids: each row a random pattern of PERIOD distinct tokens, repeated."""
    patterns = torch.stack([torch.randperm(VOCAB_SIZE, generator=generator)[:PERIOD] for _ in range(batch)])
    repeats = -(-SEQ_LEN // PERIOD)
    return patterns.repeat(1, repeats)[:, :SEQ_LEN]                     # [B, S]


def train(position: str, steps: int, seed: int = 0) -> list[float]:
    """The training loss after each of `steps` AdamW steps of a fresh TinyLM."""
    torch.manual_seed(seed)
    model = TinyLM(VOCAB_SIZE, D_MODEL, N_HEADS, SEQ_LEN, position=position)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    data = torch.Generator().manual_seed(seed + 1)                      # the same batches for every method
    losses = []
    for _ in range(steps):
        ids = make_batch(data)
        loss = next_token_loss(model(ids), ids)                          # logits[:, t] vs ids[:, t+1]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 6))
    return losses


def main(argv: list[str]) -> None:
    options = json.loads(argv[1]) if len(argv) > 1 else {}
    steps = int(options.get("steps", 300))
    methods = list(options.get("methods", POSITION_METHODS))
    torch.set_num_threads(1)
    losses = {method: train(method, steps, int(options.get("seed", 0))) for method in methods}
    print(json.dumps({"steps": steps, "losses": losses}))


if __name__ == "__main__":
    main(sys.argv)
