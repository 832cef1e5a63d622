"""Checks for exercises/quadrature.py: trapezoid, which takes a function.

What a check passes as `f` crosses to the student's code as data (docs/authoring.md, "What crosses
to student code"): a lambda or a def of this file as its source with the values it closes over,
math.sin by its name. Inputs come from py_rng, a random.Random seeded by the run."""
from __future__ import annotations

import math

import pytest

from grader.checking import expect_call


def polynomial(py_rng):
    """A random cubic, as a closure over its coefficients (sent with them)."""
    c0, c1, c2, c3 = (round(py_rng.uniform(-2, 2), 3) for _ in range(4))
    return lambda x: c0 + c1 * x + c2 * x ** 2 + c3 * x ** 3


@pytest.mark.exercise("trapezoid")
@pytest.mark.points(2)
def test_trapezoid_of_a_cubic(candidate, reference, py_rng):
    a = round(py_rng.uniform(-1, 0), 3)
    expect_call(candidate, reference, "trapezoid", polynomial(py_rng), a, a + 2.0, 7)


@pytest.mark.exercise("trapezoid")
def test_trapezoid_of_math_sin(candidate, reference, py_rng):
    expect_call(candidate, reference, "trapezoid", math.sin, 0.0, round(py_rng.uniform(1, 3), 3), 16)


def bump(x):
    """A function of this file, using a module global (math) and a constant."""
    return math.exp(-WIDTH * x * x)


WIDTH = 4.0


@pytest.mark.exercise("trapezoid")
@pytest.mark.hidden
def test_trapezoid_of_a_def_with_globals(candidate, reference, py_rng):
    expect_call(candidate, reference, "trapezoid", bump, -1.0, round(py_rng.uniform(0.5, 1.5), 3), 10)
