"""Red-team cases for the partial-credit property checks (grader/checks/test_rope.py,
test_positions.py: expect_shape / expect_at_least) and the per-process cache of trusted results
(grader/checking/trusted_results.py). Every case holds: the holes this file first recorded as strict xfails are fixed.

Rule under attack: code that implements nothing earns 0 from every check, property checks included.
"""

from __future__ import annotations

import math
import sys
import threading
import tracemalloc
import types

import pytest
import torch

from grader import checking
from grader.checking import trusted_results
from grader.running.session import Job, run_session
from grader.running.trusted import TrustedCandidate
from tests.first_course import COURSE
from tests.nonempty import nonempty

SEEDS = (3, 777, 424242)


def _scores(cases: dict, seed: int) -> dict[str, tuple[float, float, list[str]]]:
    jobs = [
        Job(key=label, exercises=(ex,), trusted=types.SimpleNamespace(**{ex: impl}))
        for label, (ex, impl) in cases.items()
    ]
    results: dict = {}
    torch.set_num_threads(1)
    run_session(
        jobs, lambda job, outcomes: results.__setitem__(job.key, outcomes), seed=seed, reveal_hidden=True, course=COURSE
    )
    out = {}
    for label, (ex, _) in cases.items():
        mine = [o for o in results[label] if o.exercise == ex]
        assert mine, label
        out[label] = (sum(o.score for o in mine), sum(o.max_score for o in mine), [o.name for o in mine if o.passed])
    return out


def _positions(x, positions):
    return torch.arange(x.shape[-2]) if positions is None else positions


def _rotate(x, angle):  # angle [S, d/2]
    a = angle.to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x0 * a.cos() - x1 * a.sin(), x0 * a.sin() + x1 * a.cos()), -1).flatten(-2)


def _rope_sign_by_parity(x, positions=None, base=10000.0):  # x * (-1)^p: no trig, no base
    return x * (1 - 2 * (_positions(x, positions) % 2)).to(x.dtype)[:, None]


def _rope_sign_by_index(x, positions=None, base=10000.0):  # ignores `positions` altogether
    return x * (1 - 2 * (torch.arange(x.shape[-2]) % 2)).to(x.dtype)[:, None]


def _rope_random_rotation(x, positions=None, base=10000.0):  # noise that keeps lengths
    return _rotate(x, torch.rand(x.shape[-2], x.shape[-1] // 2) * 2 * math.pi)


def _rope_quarter_turns(x, positions=None, base=10000.0):  # p * 90 degrees, every pair
    p = _positions(x, positions).to(torch.float64)
    return _rotate(x, (p * math.pi / 2)[:, None].expand(-1, x.shape[-1] // 2))


def _sin_random_unit_pairs(s, d, base=10000.0):  # noise on the unit circle
    a = torch.rand(s, d // 2) * 2 * math.pi
    return torch.stack((a.sin(), a.cos()), -1).flatten(-2)


def _sin_alternating_constant(s, d, base=10000.0):  # [0,1,..] and [1,0,..] rows in turn
    pe = torch.tensor([0.0, 1.0] * (d // 2)).repeat(s, 1)
    pe[1::2] = torch.tensor([1.0, 0.0] * (d // 2))
    return pe


def _sin_alternating_bool(s, d, base=10000.0):  # the same as a bool tensor (no dtype check)
    return _sin_alternating_constant(s, d).bool()


def _sin_sign_by_parity(s, d, base=10000.0):  # [0, (-1)^p, 0, (-1)^p, ...]
    pe = torch.zeros(s, d)
    pe[:, 1::2] = (1 - 2 * (torch.arange(s) % 2)).float()[:, None]
    return pe


def _sin_row_one_differs(s, d, base=10000.0):  # only rows 1 and 2 are compared
    pe = torch.tensor([0.0, 1.0] * (d // 2)).repeat(s, 1)
    pe[1] = torch.tensor([1.0, 0.0] * (d // 2))
    return pe


NO_EFFORT_THAT_SCORES = {
    "rope x*(-1)^p": ("apply_rope", _rope_sign_by_parity),
    "rope x*(-1)^index, positions ignored": ("apply_rope", _rope_sign_by_index),
    "rope random rotation per call": ("apply_rope", _rope_random_rotation),
    "rope p quarter turns": ("apply_rope", _rope_quarter_turns),
    "sinusoidal random unit pairs": ("sinusoidal_encoding", _sin_random_unit_pairs),
    "sinusoidal alternating constant rows": ("sinusoidal_encoding", _sin_alternating_constant),
    "sinusoidal alternating bool rows": ("sinusoidal_encoding", _sin_alternating_bool),
    "sinusoidal [0, (-1)^p] pattern": ("sinusoidal_encoding", _sin_sign_by_parity),
    "sinusoidal constant with row 1 changed": ("sinusoidal_encoding", _sin_row_one_differs),
}


def _r90(x):
    out = torch.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


NO_EFFORT_THAT_FAILS = {
    "rope NaN": ("apply_rope", lambda x, positions=None, base=10000.0: torch.full_like(x, float("nan"))),
    "rope inf": ("apply_rope", lambda x, positions=None, base=10000.0: torch.full_like(x, float("inf"))),
    "rope inf at odd positions": (
        "apply_rope",
        lambda x, positions=None, base=10000.0: (
            x * torch.where(_positions(x, positions) % 2 == 1, float("inf"), 1.0)[:, None]
        ),
    ),
    "rope 90 degrees everywhere": ("apply_rope", lambda x, positions=None, base=10000.0: _r90(x)),
    "rope float64 identity": ("apply_rope", lambda x, positions=None, base=10000.0: x.double()),
    "rope a list": ("apply_rope", lambda x, positions=None, base=10000.0: x.tolist()),
    "rope wrong shape": ("apply_rope", lambda x, positions=None, base=10000.0: x[..., :2]),
    "rope scaled by position": (
        "apply_rope",
        lambda x, positions=None, base=10000.0: x * (1.0 + _positions(x, positions).float())[:, None],
    ),
    "sinusoidal NaN": ("sinusoidal_encoding", lambda s, d, base=10000.0: torch.full((s, d), float("nan"))),
    "sinusoidal noise": ("sinusoidal_encoding", lambda s, d, base=10000.0: torch.randn(s, d)),
    "sinusoidal arange": ("sinusoidal_encoding", lambda s, d, base=10000.0: torch.arange(s * d).float().reshape(s, d)),
}


def _rope_complex(x, positions=None, base=10000.0):
    s, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError("odd")
    p = _positions(x, positions)
    if p.dim() != 1 or p.shape[0] != s:
        raise ValueError("positions")
    angle = torch.outer(p.float(), 1.0 / base ** (torch.arange(0, d, 2).float() / d))
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).flatten(-2).to(x.dtype)


def _sin_tutorial(s, d, base=10000.0):
    if d % 2:
        raise ValueError("odd")
    div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(base) / d))
    pe = torch.zeros(s, d)
    pe[:, 0::2] = torch.sin(torch.arange(s)[:, None].float() * div)
    pe[:, 1::2] = torch.cos(torch.arange(s)[:, None].float() * div)
    return pe


_cache: dict[int, dict] = {}


def _all_scores(seed: int) -> dict:
    if seed not in _cache:
        from solutions.positions import sinusoidal_encoding
        from solutions.rope import apply_rope

        cases = {
            **NO_EFFORT_THAT_SCORES,
            **NO_EFFORT_THAT_FAILS,
            "correct: reference rope": ("apply_rope", apply_rope),
            "correct: complex float32 rope": ("apply_rope", _rope_complex),
            "correct: reference sinusoidal": ("sinusoidal_encoding", sinusoidal_encoding),
            "correct: tutorial exp(log) sinusoidal": ("sinusoidal_encoding", _sin_tutorial),
        }
        _cache[seed] = _scores(cases, seed)
    return _cache[seed]


# ---- (a) property checks -----------------------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
@pytest.mark.parametrize("label", sorted(NO_EFFORT_THAT_SCORES))
def test_position_dependent_no_effort_code_earns_nothing(label):
    for seed in SEEDS:
        score, top, passed = _all_scores(seed)[label]
        assert score == 0, f"{label} (seed {seed}): {score} of {top} from {passed}"


@pytest.mark.parametrize("label", sorted(NO_EFFORT_THAT_FAILS))
def test_nan_inf_wrong_type_shape_and_scaling_earn_nothing(label):
    for seed in SEEDS:
        score, top, passed = _all_scores(seed)[label]
        assert top > 0 and score == 0, f"{label} (seed {seed}): {score} of {top} from {passed}"


@pytest.mark.parametrize("seed", SEEDS)
def test_correct_alternatives_earn_every_point(seed):
    for label, (score, top, passed) in nonempty(_all_scores(seed).items()):
        if label.startswith("correct:"):
            assert score == top, f"{label} (seed {seed}): {score} of {top}, passed only {passed}"


# ---- (b) trusted_results -----------------------------------------------------------------------


@pytest.fixture
def empty_cache():
    trusted_results.clear()
    yield
    trusted_results.clear()


def _key(*args, **kwargs):
    return trusted_results.inputs_key(args, kwargs)


def test_keys_split_values_that_differ_and_join_only_equal_values(empty_cache):
    z = torch.tensor([1 + 2j, 3 - 1j])
    m = torch.randn(3, 4)
    assert _key(torch.tensor([0.0])) != _key(torch.tensor([-0.0]))
    assert _key(0.0) != _key(-0.0)
    assert _key(torch.tensor([float("nan")])) != _key(torch.tensor([float("nan")]).neg())  # NaN sign bit
    assert _key(z.conj()) != _key(z) and _key(z.conj()) == _key(z.conj().resolve_conj())
    assert _key(-torch.tensor([1.0]).neg()) == _key(torch.tensor([1.0]))
    assert _key(m.t()) == _key(m.t().contiguous()) and _key(m.t()) != _key(m)
    assert _key(torch.tensor([True])) != _key(torch.tensor([1], dtype=torch.uint8))
    assert _key(True) != _key(1) != _key(1.0)
    assert _key(a=1, b=2) == _key(b=2, a=1)
    assert _key(1) != _key(x=1)


def test_a_result_handed_out_on_a_miss_can_be_written_without_touching_the_cache(empty_cache):
    def fn(x):
        return [x * 2, {"t": x + 1}]

    key = _key(torch.ones(3))
    first = trusted_results.call(fn, key, "v", lambda: fn(torch.ones(3)))
    first[0].add_(100.0)
    first[1]["t"].zero_()
    again = trusted_results.call(fn, key, "v", lambda: pytest.fail("computed again"))
    assert torch.equal(again[0], torch.full((3,), 2.0)) and torch.equal(again[1]["t"], torch.full((3,), 2.0))


def test_expect_call_after_the_check_mutates_its_input_uses_the_new_contents(empty_cache):
    def double(x):
        return x * 2

    reference = types.SimpleNamespace(double=double)
    candidate = TrustedCandidate(types.SimpleNamespace(double=lambda x: x.mul_(2)))  # writes in place
    x = torch.arange(4.0)
    checking.expect_call(candidate, reference, "double", x)
    x.add_(1.0)  # the check changes the input afterwards
    checking.expect_call(candidate, reference, "double", x)  # must compare with 2 * (new x)
    with pytest.raises(checking.CheckFailure):
        checking.expect_call(
            TrustedCandidate(types.SimpleNamespace(double=lambda x: x * 2 - 2)), reference, "double", x
        )


def test_hints_are_the_same_from_a_cold_and_a_warm_cache():
    from tests.first_course import catalogue

    clockwise = next(m for m in catalogue() if m.id == "rope-clockwise").obj
    feedback = []
    for _ in range(2):
        trusted_results.clear()
        results: dict = {}
        jobs = [
            Job(key=i, exercises=("apply_rope",), trusted=types.SimpleNamespace(apply_rope=clockwise)) for i in range(2)
        ]
        run_session(
            jobs,
            lambda job, outcomes: results.__setitem__(job.key, outcomes),
            seed=11,
            reveal_hidden=True,
            course=COURSE,
        )
        feedback.append([[(o.name, o.passed, o.output) for o in results[i]] for i in range(2)])
    assert feedback[0][0] == feedback[0][1] == feedback[1][0]
    assert any("clockwise" in output for _, _, output in feedback[0][0])


def test_big_string_results_stay_within_the_bound(empty_cache, monkeypatch):
    monkeypatch.setattr(trusted_results, "MAX_BYTES", 1 << 20)
    monkeypatch.setattr(trusted_results, "MAX_ENTRY", 1 << 18)

    def text(i):
        return "x" * (1 << 20)

    for i in range(8):
        trusted_results.call(text, _key(i), "v", lambda: text(0))
    held = sum(len(v) for v in trusted_results._results.values())
    assert held <= trusted_results.MAX_BYTES, f"{held} bytes held, bound {trusted_results.MAX_BYTES}"


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_many_small_results_stay_within_the_bound(empty_cache, monkeypatch):
    monkeypatch.setattr(trusted_results, "MAX_BYTES", 2 << 20)

    def f(i):
        return 1.5

    keys = [_key(i) for i in range(40000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for key in keys:
            trusted_results.call(f, key, "v", lambda: 1.5)
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert used <= 1.5 * trusted_results.MAX_BYTES, f"{used} bytes for a bound of {trusted_results.MAX_BYTES}"


class _Marked(torch.Tensor):
    """A tensor subclass: the same bytes as a plain tensor, but a subclass may change what ops mean."""


def test_a_tensor_subclass_is_never_keyed_like_the_plain_tensor(empty_cache):
    plain = torch.arange(3.0)
    assert _key(plain) is not None
    assert _key(plain.as_subclass(_Marked)) is None  # not cached at all
    assert _key(torch.nn.Parameter(plain.clone(), requires_grad=False)) is None
    calls = []

    def plus_one(x):
        calls.append(type(x))
        return (x + 1).as_subclass(torch.Tensor)

    for value in (plain, plain.as_subclass(_Marked), plain.as_subclass(_Marked)):
        trusted_results.call(plus_one, _key(value), "v", lambda value=value: plus_one(value))
    assert calls == [torch.Tensor, _Marked, _Marked]  # the subclass is computed each time, never served


def test_python_nan_sign_is_part_of_the_key(empty_cache):
    def sign(v):
        return math.copysign(1.0, v)

    nan = float("nan")
    assert trusted_results.call(sign, _key(nan), "v", lambda: sign(nan)) == 1.0
    assert trusted_results.call(sign, _key(-nan), "v", lambda: sign(-nan)) == -1.0


def test_two_threads_share_the_cache_safely(empty_cache, monkeypatch):
    monkeypatch.setattr(trusted_results, "MAX_BYTES", 64 * 8)
    monkeypatch.setattr(trusted_results, "MAX_ENTRY", 64)

    def f(x):
        return 1

    keys = [_key(i) for i in range(12)]
    errors: list[str] = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def work(offset):
        try:
            for n in range(150000):
                trusted_results.call(f, keys[(n * 7 + offset) % 12], "v", lambda: 1)
                if errors:
                    return
        except Exception as error:
            errors.append(repr(error))

    try:
        threads = [threading.Thread(target=work, args=(o,)) for o in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[0]
    assert trusted_results._total == sum(trusted_results._sizes.values())


def test_nothing_is_kept_after_a_run():
    trusted_results.clear()
    from solutions.rope import apply_rope

    run_session(
        [Job(key=0, exercises=("apply_rope",), trusted=types.SimpleNamespace(apply_rope=apply_rope))],
        lambda job, outcomes: None,
        seed=5,
        reveal_hidden=True,
        course=COURSE,
    )
    assert not trusted_results._results, f"{len(trusted_results._results)} entries kept after the run"
