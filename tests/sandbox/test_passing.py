"""What crosses to student code besides tensors: numpy arrays, functions a check passes (by
importable name, or as source with closure values), callables the child returns (handles), and
the located refusal of everything else. Expected values are computed here by plain Python on the
same inputs, never by the code under test."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from grader.sandbox import CandidateError, RemoteObject
from grader.sandbox import wire
from grader.sandbox.candidate import UnsupportedValue

NUMERICS = """
import math

def trapezoid(f, a, b, n):
    h = (b - a) / n
    return h * (0.5 * f(a) + sum(f(a + i * h) for i in range(1, n)) + 0.5 * f(b))

def apply(f, *args):
    return f(*args)

def double(x):
    return x * 2

def echo(x):
    return x

def make_counter():
    count = [0]
    def tick(step=1):
        count[0] += step
        return count[0]
    return tick

def seen_by_f(f):
    return {
        "globals": sorted(k for k in f.__globals__ if not k.startswith("__")),
        "closure": [type(c.cell_contents).__name__ for c in (f.__closure__ or ())],
        "file": f.__code__.co_filename,
    }
"""


def trapezoid_here(f, a, b, n):  # the rule written apart from the submission's
    h = (b - a) / n
    xs = [a + i * h for i in range(n + 1)]
    return h * (sum(f(x) for x in xs) - (f(a) + f(b)) / 2)


OFFSET = 0.25


def shifted_square(x):
    """A def of this file using a module global and math."""
    return math.sqrt(x * x) ** 2 + OFFSET


def countdown(k):  # recursive: rebuilt under its own name
    return 0 if k <= 0 else 1 + countdown(k - 1)


# ---- functions a check passes -----------------------------------------------------------------


def test_a_standard_library_function_crosses_by_name(load):
    candidate = load(NUMERICS)
    assert candidate.trapezoid(math.sin, 0.0, math.pi, 64) == pytest.approx(trapezoid_here(math.sin, 0.0, math.pi, 64))
    assert candidate.apply(abs, -3) == 3


def test_a_numpy_ufunc_and_function_cross_by_name(load):
    candidate = load(NUMERICS)
    assert candidate.trapezoid(np.cos, 0.0, 1.0, 10) == pytest.approx(trapezoid_here(math.cos, 0.0, 1.0, 10))
    assert candidate.apply(np.hypot, 3.0, 4.0) == 5.0


def test_a_lambda_crosses_with_the_values_it_closes_over(load):
    candidate = load(NUMERICS)
    k, shift = 3.5, np.array([1.0, 2.0])
    assert candidate.trapezoid(lambda x: k * x, 0.0, 2.0, 4) == pytest.approx(7.0)
    assert candidate.apply(lambda v: v + shift, np.array([10.0, 20.0])).tolist() == [11.0, 22.0]


def test_two_lambdas_on_one_line_each_cross_as_itself(load):
    candidate = load(NUMERICS)
    f, g = (lambda x: x + 1), (lambda x: x * 10)
    assert (candidate.apply(f, 2), candidate.apply(g, 2)) == (3, 20)
    make = lambda c: lambda y: c * y  # noqa: E731
    assert candidate.apply(make(7), 3) == 21


def test_a_def_crosses_with_its_globals_and_a_recursive_one_with_itself(load):
    candidate = load(NUMERICS)
    assert candidate.apply(shifted_square, 3.0) == pytest.approx(9.25)
    assert candidate.apply(countdown, 5) == 5


def test_defaults_keyword_defaults_and_partials_cross(load):
    candidate = load(NUMERICS)

    def scaled(x, factor=2.0, *, offset=1.0):
        return factor * x + offset

    assert candidate.apply(scaled, 4.0) == 9.0
    assert candidate.apply(functools.partial(scaled, factor=10.0), 1.0) == 11.0
    assert candidate.apply(functools.partial(pow, 2), 10) == 1024


def test_the_child_sees_only_what_was_sent_with_the_function(load):
    candidate = load(NUMERICS)
    secret = {"answer": 42}  # noqa: F841 - in this scope, never closed over by the lambda
    k = 2.0
    seen = candidate.seen_by_f(lambda x: math.exp(x) * k)
    assert seen["globals"] == ["math"]  # no candidate, no reference, nothing else of this module
    assert seen["closure"] == ["float"]
    assert "/" not in seen["file"]  # no path of the check file reaches the child


# ---- numpy arrays ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", ["float16", "float32", "float64", "complex128", "int8", "int32", "int64", "uint8", "uint64", "bool"]
)
def test_numpy_arrays_cross_both_ways_as_their_dtype_and_shape(load, dtype):
    candidate = load(NUMERICS)
    x = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    y = candidate.echo(x)
    assert type(y) is np.ndarray and y.dtype == x.dtype and y.shape == (3, 4)
    assert np.array_equal(y, x) and y.flags.writeable


def test_a_non_contiguous_big_endian_array_arrives_as_its_values(load):
    candidate = load(NUMERICS)
    x = np.arange(20, dtype=">f8").reshape(4, 5)[:, ::2]
    y = candidate.double(x)
    assert y.dtype == np.float64 and np.array_equal(y, np.asarray(x) * 2)


def test_a_numpy_scalar_crosses_as_itself_and_comes_back_as_a_number(load):
    candidate = load(NUMERICS)
    assert candidate.echo(np.float32(1.5)) == 1.5
    assert candidate.apply(lambda v: type(v).__name__, np.float32(1.5)) == "float32"


def test_the_parent_never_rebuilds_a_function_a_child_sends():
    node = {"function": {"import": "os:system"}}
    with pytest.raises(wire.ProtocolError):
        wire.decode_value(node, b"", max_elements=10)
    with pytest.raises(wire.ProtocolError):
        wire.decode_value({"ndarray": ["object", [1], 0, 8]}, b"\0" * 8, max_elements=10)
    with pytest.raises(wire.ProtocolError):
        wire.decode_value({"ndarray": ["float64", [2], 0, 8]}, b"\0" * 8, max_elements=10)


# ---- callables the child returns --------------------------------------------------------------


def test_a_returned_function_stays_in_the_child_and_is_called_there(load):
    candidate = load(NUMERICS)
    tick = candidate.make_counter()
    assert isinstance(tick, RemoteObject) and "tick" in repr(tick)
    assert [tick(), tick(), tick(step=5)] == [1, 2, 7]  # its state lives in the child
    assert candidate.apply(tick, 10) == 17  # handed back to the child as itself


# ---- what cannot cross ------------------------------------------------------------------------


def unsupported_message(call) -> str:
    with pytest.raises(UnsupportedValue) as caught:
        call()
    message = str(caught.value)
    assert "What can cross to student code" in message and "Instead:" in message
    assert "test_passing.py:" in message  # the check's own line
    return message


def test_an_unsupported_value_names_the_argument_the_line_and_what_to_do(load):
    candidate = load(NUMERICS)
    message = unsupported_message(lambda: candidate.trapezoid(math.sin, 0.0, object(), 4))
    assert message.startswith("argument 3 of trapezoid (test_passing.py:")
    message = unsupported_message(lambda: candidate.echo(x=np.array(["a", "b"])))
    assert "argument x= of echo" in message and "astype" in message


def test_a_bound_method_a_closure_over_a_trusted_object_and_a_reference_are_refused(load):
    candidate = load(NUMERICS)

    class Trusted:
        def value(self, x):
            return x

    assert "bound method" in unsupported_message(lambda: candidate.apply(Trusted().value, 1))
    holder = Trusted()
    assert "closes over" in unsupported_message(lambda: candidate.apply(lambda x: holder.value(x), 1))
    from solutions.tokens import encode

    assert "never sent to student code" in unsupported_message(lambda: candidate.apply(encode, ["a"], {"a": 0}))


def test_a_numpy_array_subclass_is_refused_rather_than_stripped(load):
    candidate = load(NUMERICS)
    assert "numpy.asarray" in unsupported_message(lambda: candidate.echo(np.ma.masked_array([1.0, 2.0])))


# ---- hostile code calling f stays contained --------------------------------------------------

HOSTILE = """
import gc

def rewrite(f):
    f.__code__ = (lambda x: 0.0).__code__      # changes the child's copy only
    f.__defaults__ = (99,)
    return f(1.0)

def hunt(f):
    found = []
    for obj in gc.get_objects():
        name = getattr(type(obj), "__name__", "")
        if name in ("Candidate", "GraderState", "SimpleNamespace", "TrustedCandidate", "Mistake"):
            found.append(name)
    for name in ("__globals__", "__closure__", "__defaults__"):
        for value in (getattr(f, name, None) or ()):
            if getattr(type(value), "__module__", "").startswith(("grader", "solutions", "_pytest")):
                found.append(name)
    for module in ("solutions", "grader", "exercises"):
        try:
            __import__(module)
            found.append(module + " importable")
        except ImportError:
            pass
    return found

def spin(f):
    while True:
        f(1.0)

def shout(f):
    while True:
        print(f(1.0) * 1000)

def give_back(f):
    return f
"""


def test_rewriting_the_passed_function_changes_nothing_here(load):
    candidate = load(HOSTILE)

    def f(x):
        return 2 * x

    code = f.__code__
    assert candidate.rewrite(f) == 0.0
    assert f.__code__ is code and f(1.0) == 2.0 and f.__defaults__ is None


def test_nothing_trusted_is_reachable_through_the_passed_function(load):
    candidate = load(HOSTILE)
    assert candidate.hunt(lambda x: x) == []


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_loop_calling_f_is_stopped_by_the_students_own_time_limit(load):
    candidate = load(HOSTILE)
    with pytest.raises(CandidateError) as caught:
        candidate.spin(lambda x: x * x)
    assert caught.value.kind in ("timeout", "cpu")


def test_output_printed_through_f_counts_against_the_students_output_limit(load):
    candidate = load(HOSTILE)
    with pytest.raises(CandidateError) as caught:
        candidate.shout(lambda x: x + 1)
    assert caught.value.kind == "output"


def test_a_passed_function_returned_comes_back_as_a_handle_not_as_code(load):
    candidate = load(HOSTILE)
    handle = candidate.give_back(lambda x: x + 1)
    assert isinstance(handle, RemoteObject) and handle(1) == 2


def test_a_public_course_function_crosses_as_source(load):
    # exercises/ is public (students get it): its functions are sent as their source, not by a name
    # the child could not import (the course folder is hidden from it)
    from exercises.tokens import encode

    candidate = load(NUMERICS)
    with pytest.raises(CandidateError) as caught:
        candidate.apply(encode, ["a"], {"a": 0})
    assert "NotImplementedError" in str(caught.value)
