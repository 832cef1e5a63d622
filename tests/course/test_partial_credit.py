"""Partial credit goes to real attempts and never to no-effort code.

The implementations here are written for this test, apart from the references and the mistake
catalogue: attempts with one plausible mistake (sin and cos swapped, clockwise, another exponent)
must earn part of the points of their exercise and no more; code that does no work (the identity,
zeros, a constant, a negation, noise, always raising) must earn 0 from every check of it, property
and error-path checks included. The checks run in-process through the grader's own driver.
"""

from __future__ import annotations

import math
import types

import pytest
import torch

from grader.running.session import Job, run_session
from tests.first_course import COURSE
from tests.nonempty import nonempty

SEEDS = (3, 777, 424242)


def _rope(x, positions=None, base=10000.0, *, swap=False, sign=1.0, exponent=2.0):
    seq_len, dim = x.shape[-2], x.shape[-1]
    if dim % 2:
        raise ValueError("odd")
    positions = torch.arange(seq_len) if positions is None else positions
    freq = torch.tensor([base ** (-exponent * i / dim) for i in range(dim // 2)], dtype=torch.float64)
    angle = positions.to(torch.float64)[:, None] * freq[None, :] * sign
    c, s = (angle.sin(), angle.cos()) if swap else (angle.cos(), angle.sin())
    c, s = c.to(x.dtype), s.to(x.dtype)
    out = torch.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out


def _sinusoidal(seq_len, d_model, base=10000.0, *, swap=False, exponent=2.0):
    if d_model % 2:
        raise ValueError("odd")
    pe = torch.zeros(seq_len, d_model)
    for p in range(seq_len):
        for i in range(d_model // 2):
            a = p / base ** (exponent * i / d_model)
            first, second = (math.cos(a), math.sin(a)) if swap else (math.sin(a), math.cos(a))
            pe[p, 2 * i], pe[p, 2 * i + 1] = first, second
    return pe


def _always_raising(*args, **kwargs):
    raise ValueError("d_model must be even")


ATTEMPTS = {  # (exercise, implementation): one plausible mistake each
    "rope sin/cos swapped": (
        "apply_rope",
        lambda x, positions=None, base=10000.0: _rope(x, positions, base, swap=True),
    ),
    "rope clockwise": ("apply_rope", lambda x, positions=None, base=10000.0: _rope(x, positions, base, sign=-1.0)),
    "rope exponent i/d": (
        "apply_rope",
        lambda x, positions=None, base=10000.0: _rope(x, positions, base, exponent=1.0),
    ),
    "sinusoidal sin/cos swapped": (
        "sinusoidal_encoding",
        lambda s, d, base=10000.0: _sinusoidal(s, d, base, swap=True),
    ),
    "sinusoidal exponent i/d": (
        "sinusoidal_encoding",
        lambda s, d, base=10000.0: _sinusoidal(s, d, base, exponent=1.0),
    ),
}

NO_EFFORT = {
    "rope identity": ("apply_rope", lambda x, positions=None, base=10000.0: x.clone()),
    "rope negation": ("apply_rope", lambda x, positions=None, base=10000.0: -x),
    "rope zeros": ("apply_rope", lambda x, positions=None, base=10000.0: torch.zeros_like(x)),
    "rope pairs swapped": (
        "apply_rope",
        lambda x, positions=None, base=10000.0: x.reshape(*x.shape[:-1], -1, 2).flip(-1).reshape(x.shape),
    ),
    "rope noise": ("apply_rope", lambda x, positions=None, base=10000.0: torch.randn_like(x)),
    "rope always raising": ("apply_rope", _always_raising),
    "sinusoidal zeros": ("sinusoidal_encoding", lambda s, d, base=10000.0: torch.zeros(s, d)),
    "sinusoidal constant 0 1 0 1": (
        "sinusoidal_encoding",
        lambda s, d, base=10000.0: torch.tensor([0.0, 1.0] * (d // 2)).repeat(s, 1),
    ),
    "sinusoidal ones": ("sinusoidal_encoding", lambda s, d, base=10000.0: torch.ones(s, d)),
    "sinusoidal always raising": ("sinusoidal_encoding", _always_raising),
}


def _scores(cases: dict, seed: int) -> dict[str, tuple[float, float, list[str]]]:
    """Per case: points earned on its exercise, the exercise's maximum, the checks passed."""
    jobs = [
        Job(key=label, exercises=(exercise,), trusted=types.SimpleNamespace(**{exercise: impl}))
        for label, (exercise, impl) in cases.items()
    ]
    results: dict = {}
    torch.set_num_threads(1)
    run_session(
        jobs, lambda job, outcomes: results.__setitem__(job.key, outcomes), seed=seed, reveal_hidden=True, course=COURSE
    )
    scores = {}
    for label, (exercise, _) in cases.items():
        mine = [o for o in results[label] if o.exercise == exercise]
        assert mine, f"{label}: no check of {exercise} ran"
        scores[label] = (sum(o.score for o in mine), sum(o.max_score for o in mine), [o.name for o in mine if o.passed])
    return scores


@pytest.mark.parametrize("seed", SEEDS)
def test_an_attempt_with_one_plausible_mistake_earns_part_of_the_points(seed):
    for label, (score, top, passed) in nonempty(_scores(ATTEMPTS, seed).items()):
        assert 0 < score < top, f"{label}: {score} of {top} (passed: {passed})"
        assert any("length" in name or "circle" in name or "offset" in name for name in passed), (label, passed)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_effort_code_earns_nothing_from_any_check(seed):
    for label, (score, top, passed) in nonempty(_scores(NO_EFFORT, seed).items()):
        assert top > 0 and score == 0, f"{label}: {score} of {top} from {passed}"
