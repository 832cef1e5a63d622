"""Train the capstone's TinyLM on a corpus where order matters, once per position method.

The corpus: each sequence repeats a random pattern of `period` distinct tokens
(e.g. 3 7 1 5 3 7 1 5 ...). Once the pattern has been seen, the next token is the token
`period - 1` places back, so a model that knows positions can predict it exactly; a model
without positions sees only the set of earlier tokens (causal attention over a set) and can
only guess among the pattern's other tokens.

Run as a module with a list of jobs it prints, for each, what `run` measures; the course's
experiment `capstone_runs` (content/plugins/experiments.py) runs it in child processes with one
thread and fixed seeds, so the numbers are the same on every build, and the capstone's claims and
its loss-curve figure read them.

    python -m solutions.capstone_training '{"jobs": [{"position": "rope", "steps": 300, "seed": 0}]}'
"""
from __future__ import annotations

import json
import sys

import torch

from .capstone import POSITION_METHODS, TinyLM
from .lm_head import next_token_loss

VOCAB_SIZE, PERIOD, SEQ_LEN, BATCH = 8, 3, 12, 32
D_MODEL, N_HEADS, LEARNING_RATE = 32, 4, 3e-2
NORM_EVERY = 50                                                         # steps between two length readings


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


def run(position: str, steps: int, seed: int, lr: float = LEARNING_RATE, scale_embeddings: bool = False,
        equal_lengths: bool = False, position_std: float | None = None) -> dict:
    """One training run of a fresh TinyLM, with what the capstone's claims read:
    losses (per step), final (mean of the last 10), two_back (on 256 fresh sequences, how often the
    argmax at t >= 2 is the token two places back, i.e. the next token), plateau (the first step whose
    mean over the last 10 steps is below 1.9, still near ln 8 = 2.079 before it; None: never) and, for
    learned positions, row_length (the table's mean row length at initialisation); target_losses (the
    held-out mean loss of each of the S-1 targets), seen_mass (the mean probability put, at the first
    two targets, on tokens already seen, which never come next there) and norms ({step: [mean token
    vector length, mean position vector length or None]} every NORM_EVERY steps and at the end).

    Ablations: scale_embeddings multiplies the token vectors by sqrt(D) on the way in (the original
    Transformer's rescaling; the tied head still uses the table unscaled); equal_lengths rescales the
    sinusoidal table so its rows are as long as the initial token vectors; position_std initialises
    the learned table with that standard deviation instead of nn.Embedding's N(0, 1)."""
    torch.manual_seed(seed)
    model = TinyLM(VOCAB_SIZE, D_MODEL, N_HEADS, SEQ_LEN, position=position)
    if scale_embeddings:
        model.token_embedding.register_forward_hook(lambda module, inputs, output: output * D_MODEL ** 0.5)
    if equal_lengths and position == "sinusoidal":
        with torch.no_grad():
            model.pe.mul_(model.token_embedding.weight.norm(dim=-1).mean() / model.pe.norm(dim=-1).mean())
    row_length = None
    if position == "learned":
        if position_std is not None:
            torch.nn.init.normal_(model.position_embedding.weight, std=position_std)
        row_length = round(model.position_embedding.weight.norm(dim=-1).mean().item(), 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    data = torch.Generator().manual_seed(seed + 1)                      # the same batches for every method
    losses, norms = [], {}
    for step in range(steps):
        if step % NORM_EVERY == 0:
            norms[str(step)] = _vector_lengths(model, position)
        ids = make_batch(data)
        loss = next_token_loss(model(ids), ids)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 5))
    norms[str(steps)] = _vector_lengths(model, position)
    held_out = make_batch(torch.Generator().manual_seed(10_000 + seed), 256)
    with torch.no_grad():
        logits = model(held_out)                                        # [256, S, V]
    predicted = logits.argmax(dim=-1)                                   # [256, S]
    two_back = (predicted[:, 2:-1] == held_out[:, 3:]).float().mean().item()
    log_p = logits[:, :-1].log_softmax(dim=-1)                          # [256, S-1, V]: target t+1
    target_losses = (-log_p.gather(-1, held_out[:, 1:, None])[..., 0]).mean(dim=0)  # [S-1]
    seen = torch.nn.functional.one_hot(held_out, VOCAB_SIZE).cumsum(dim=1)[:, :-1] > 0  # token seen up to t
    seen_mass = (log_p.exp() * seen)[:, :2].sum(dim=-1).mean().item()  # targets 1 and 2: never a seen token
    smooth = [sum(losses[max(0, k - 9): k + 1]) / len(losses[max(0, k - 9): k + 1]) for k in range(steps)]
    plateau = next((k + 1 for k, value in enumerate(smooth) if value < 1.9), None)
    return {"losses": losses, "final": round(sum(losses[-10:]) / len(losses[-10:]), 5),
            "two_back": round(two_back, 5), "plateau": plateau, "row_length": row_length,
            "target_losses": [round(v, 5) for v in target_losses.tolist()], "seen_mass": round(seen_mass, 5),
            "norms": norms}


def _vector_lengths(model: TinyLM, position: str) -> list[float | None]:
    """[mean token-vector length, mean position-vector length (None without a position table)], as
    they are added at the input (the token vectors as the table holds them)."""
    with torch.no_grad():
        token = model.token_embedding.weight.norm(dim=-1).mean().item()
        table = model.pe if position == "sinusoidal" else (
            model.position_embedding.weight if position == "learned" else None)
        return [round(token, 4), None if table is None else round(table.norm(dim=-1).mean().item(), 4)]


def main(argv: list[str]) -> None:
    """argv[1]: JSON. {"jobs": [{"position", "steps", "seed", ...options of run()}, ...]} prints
    {"runs": [result of run() per job]}; the older {"steps", "seed", "methods"} prints
    {"steps", "losses": {method: [loss per step]}}."""
    options = json.loads(argv[1]) if len(argv) > 1 else {}
    torch.set_num_threads(1)
    if "jobs" in options:
        print(json.dumps({"runs": [run(**job) for job in options["jobs"]]}))
        return
    steps = int(options.get("steps", 300))
    methods = list(options.get("methods", POSITION_METHODS))
    losses = {method: train(method, steps, int(options.get("seed", 0))) for method in methods}
    print(json.dumps({"steps": steps, "losses": losses}))


if __name__ == "__main__":
    main(sys.argv)
