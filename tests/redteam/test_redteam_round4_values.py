"""Red team, round 4 (issue 35), item 5: student values are the student's. Whatever a submission
returns (whole numbers too large for a float, complex or oddly strided tensors, NaN, tensors of
any dtype and rank, strings, objects) is compared or refused as a wrong answer with a message;
`check_error` (the grader's own fault) is never what a student's value gets.

Every check of the first course runs against a candidate that answers every call, method and
attribute with one value of the zoo, carried as the sandbox carries it (the wire's encoder and
decoder; what the wire cannot carry is the sandbox's "returned" error)."""

from __future__ import annotations

import math

import pytest
import torch

from grader.checking.comparison import compare, same
from grader.running.session import Job, run_session
from grader.sandbox import CandidateError, wire
from tests.first_course import COURSE

BIG = 10**400


def zoo() -> list[tuple[str, object]]:
    values: list[tuple[str, object]] = [
        ("huge-int", BIG),
        ("huge-negative-int", -BIG),
        ("huge-int-list", [BIG, -BIG, 1]),
        ("nan", math.nan),
        ("minus-inf", -math.inf),
        ("complex-0d", torch.tensor(1 + 2j)),
        ("empty", torch.empty(0)),
        ("rank-16", torch.ones([1] * 16)),
        ("string", "x" * 100),
        ("none", None),
        ("dict", {"a": 1}),
        ("tuple-complex-huge", (torch.ones(2, dtype=torch.complex128), BIG)),
        ("ids-as-huge", [[BIG]]),
    ]
    for shape in [(3, 3), (4, 6), (2, 3, 4), (1, 2, 4, 6), (8,), (2, 2, 8, 8)]:
        values += [
            (f"complex{shape}", torch.full(shape, 1 + 1j, dtype=torch.complex64)),
            (f"nan{shape}", torch.full(shape, math.nan)),
            (f"int64-max{shape}", torch.full(shape, 2**63 - 1, dtype=torch.int64)),
            (f"bfloat16{shape}", torch.ones(shape, dtype=torch.bfloat16)),
            (f"bool{shape}", torch.ones(shape, dtype=torch.bool)),
            (f"stride-0{shape}", torch.ones(1).expand(math.prod(shape)).view(shape)),
        ]
    return values


def carried(value):
    """`value` as the grader receives it from a child: encoded by the wire, decoded again."""
    encoder = wire.Encoder()
    try:
        node = encoder.encode(value)
    except wire.Unencodable as exc:
        raise CandidateError(f"returned {exc.type_name}", "returned") from None
    return wire.decode_value(node, encoder.blob(), max_elements=1 << 26)


class ZooObject:
    """A student's object (RemoteObject's interface) whose every method and attribute is `value`."""

    def __init__(self, value):
        self.value = value

    def __call__(self, *args, **kwargs):
        return carried(self.value)

    def call(self, method, *args, **kwargs):
        return carried(self.value)

    def get(self, path):
        return carried(self.value)

    def set(self, path, value):
        raise CandidateError(f"{path} is not a tensor", "raised")

    def parameters(self):
        raise CandidateError("named_parameters returned garbage", "garbled")


class ZooCandidate:
    """The candidate interface: every function of the course returns `value`, every class gives a
    ZooObject."""

    def __init__(self, value):
        self.value = value

    def has(self, name):
        return True

    def names(self):
        return {e.name for e in COURSE.registry.exercises}

    def call_keeping_inputs(self, name, *args, **kwargs):
        return carried(self.value), args, kwargs

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        kinds = {e.name: e.kind for e in COURSE.registry.exercises}
        if kinds.get(name) == "class":
            return lambda *args, **kwargs: ZooObject(self.value)
        return lambda *args, **kwargs: carried(self.value)


@pytest.fixture(scope="module")
def outcomes():
    import grader.running.session as session_module

    values = zoo()
    jobs = [Job(key=label, exercises=tuple(e.name for e in COURSE.registry.exercises)) for label, _ in values]
    by_label = dict(values)
    results: dict = {}
    original = session_module.GradingDriver._grade

    def grade(self, job, loading, checks, session):  # the zoo stands where the sandbox's candidate would
        selected = [c for c in checks if c.exercise in job.exercises]
        return self._run(selected, ZooCandidate(by_label[job.key]), session)

    session_module.GradingDriver._grade = grade
    try:
        torch.set_num_threads(1)
        run_session(jobs, lambda job, out: results.__setitem__(job.key, out), seed=11, course=COURSE)
    finally:
        session_module.GradingDriver._grade = original
    assert sorted(results) == sorted(label for label, _ in values)
    return results


@pytest.mark.slow
def test_no_student_value_reaches_check_error(outcomes):
    graded = [(label, o) for label, outs in outcomes.items() for o in outs]
    assert len(graded) > 1000  # every check ran for every value
    errors = sorted({(o.name, label, o.output[:200]) for label, o in graded if o.problem == "check_error"})
    assert errors == []
    assert not [(label, o.name) for label, o in graded if o.score > 0], "a zoo value earned points"
    assert all(o.output.strip() for _, o in graded), "every wrong answer has a message"


EXPECTED = [3, 2.5, [1, 2, 3], (torch.zeros(2), 4), torch.zeros(3, 3), torch.zeros(4, 6, dtype=torch.float64), "text"]


@pytest.mark.parametrize("label,value", zoo(), ids=[label for label, _ in zoo()])
def test_every_comparison_answers_for_any_student_value(label, value):
    """compare and same never raise on a student's value: a sentence, or None when it matches."""
    actual = carried(value)
    for expected in EXPECTED:
        for check_dtype in (True, False):
            sentence = compare(actual, expected, 1e-5, 1e-5, "f", "en", None, None, check_dtype=check_dtype)
            assert sentence is None or (isinstance(sentence, str) and sentence)
            assert same(actual, expected, 1e-5, 1e-5, check_dtype) is (sentence is None)
