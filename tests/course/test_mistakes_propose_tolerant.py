"""`coursegen mistakes propose` tolerates what is incidental: students who compute the loss in bits
(not nats) and students who average per-sequence means (not per-token) make one misconception
each, but one of them raises on an ignore id outside the vocabulary and another returns inf on large
logits. Each misconception is one group with all three of its students; a catalogued mistake
(summed losses) with a raise beside it and a correct student stay out.

The class is graded by the real command line through the sandbox (the previous rule, identical
evidence on every failing check, found one group of two here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAD = "import math\nimport torch\n"

LOSS = {}
LOSS["bits-0"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    picked = log_probs.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -(picked[keep].mean()) / math.log(2)
"""
LOSS["bits-1"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    scores = torch.log_softmax(logits, dim=-1)[:, :-1]
    nxt = input_ids[:, 1:]
    chosen = scores.gather(2, nxt[..., None])[..., 0]   # raises for an id outside the vocabulary
    if ignore_id is not None:
        mask = nxt != ignore_id
    else:
        mask = torch.ones_like(nxt, dtype=torch.bool)
    if mask.sum() == 0:
        raise ValueError("nothing to predict")
    return -chosen[mask].mean() / math.log(2.0)
"""
LOSS["bits-2"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    total, count = 0.0, 0
    probs = torch.softmax(logits, dim=-1)
    for b in range(input_ids.shape[0]):
        for t in range(input_ids.shape[1] - 1):
            target = int(input_ids[b, t + 1])
            if ignore_id is not None and target == ignore_id:
                continue
            total = total - torch.log2(probs[b, t, target])
            count += 1
    if count == 0:
        raise ValueError("no targets")
    return total / count
"""
LOSS["per-seq-0"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    nll = -torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    nll = nll * keep
    per_sequence = nll.sum(dim=1) / keep.sum(dim=1)
    return per_sequence.mean()
"""
LOSS["per-seq-1"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    means = []
    for b in range(logits.shape[0]):
        lp = torch.log_softmax(logits[b, :-1], dim=-1)
        tg = input_ids[b, 1:]
        if ignore_id is not None:
            lp, tg = lp[tg != ignore_id], tg[tg != ignore_id]
        if len(tg):
            means.append(-lp[torch.arange(len(tg)), tg].mean())
    if not means:
        raise ValueError("no target left")
    return torch.stack(means).mean()
"""
LOSS["per-seq-2"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    lp = torch.log_softmax(logits[:, :-1], dim=-1)
    tg = input_ids[:, 1:]
    nll = -lp.gather(-1, tg.unsqueeze(-1)).squeeze(-1)     # raises for an id outside the vocabulary
    keep = (tg != ignore_id) if ignore_id is not None else torch.ones_like(tg, dtype=torch.bool)
    if not keep.any():
        raise ValueError("no target")
    return ((nll * keep).sum(1) / keep.sum(1)).mean()
"""
LOSS["summed-raises"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    picked = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return -picked[keep].sum()
"""
LOSS["correct"] = """
def next_token_loss(logits, input_ids, ignore_id=None):
    targets = input_ids[:, 1:]
    keep = torch.ones_like(targets, dtype=torch.bool) if ignore_id is None else targets != ignore_id
    if not bool(keep.any()):
        raise ValueError("no target left")
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    picked = log_probs.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -picked[keep].mean()
"""


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


@pytest.fixture(scope="module")
def proposals(tmp_path_factory) -> list[dict]:
    work = tmp_path_factory.mktemp("loss-class")
    for student, code in LOSS.items():
        (work / "submissions" / student).mkdir(parents=True)
        (work / "submissions" / student / "lm_head.py").write_text(HEAD + code, encoding="utf-8")
    graded = _run("grade", "submissions", "--gradebook", "gb.sqlite", "--seed", "7", "--root", str(ROOT), cwd=work)
    assert graded.returncode == 0, graded.stderr
    done = _run(
        "mistakes", "propose", "--gradebook", "gb.sqlite", "-o", "out", "--submissions", "submissions",
        "--root", str(ROOT), cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads((work / "out" / "proposals.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_students_differing_on_one_edge_case_form_one_group_each(proposals):
    groups = sorted(tuple(p["students"]) for p in proposals)
    assert groups == [("bits-0", "bits-1", "bits-2"), ("per-seq-0", "per-seq-1", "per-seq-2")]


@pytest.mark.slow
def test_each_group_names_the_checks_that_distinguish_it(proposals):
    by_first = {p["students"][0]: p for p in proposals}
    bits, per_sequence = by_first["bits-0"], by_first["per-seq-0"]
    # bits: every check is off by the factor 1/ln 2 (beside one raise and one inf)
    assert "test_next_token_loss_scores_each_position_against_the_next_token" in bits["distinguishing_checks"]
    assert "test_next_token_loss_keeps_float64_inputs_float64" in bits["distinguishing_checks"]
    # per-sequence means differ from per-token means only where sequences have different lengths
    assert per_sequence["distinguishing_checks"] == [
        "test_next_token_loss_ignores_padding_targets",
        "test_next_token_loss_with_an_ignore_id_outside_the_vocabulary",
    ]
