"""The checks' API: what a course's checks (grader/checks/*.py) import. They run in the trusted
parent; this package's __init__ is their one import, `from grader.checking import expect_call, ...`,
and re-exports the names below from the modules that do each job (a re-export by design: these
names are the contract with every course's checks, whatever the layout behind them).

    expect_call(candidate, reference, "dot", a, b, atol=1e-5)
        calls the student's function (in the sandbox) and the reference (here, in float64
        where the inputs are floating) and compares type, shape, dtype and values.
    expect_behaviour(candidate, reference, "LinearModel", scenario)
        the same for a class: `scenario(make)` builds an object with `make(*args)` and
        returns what it observed (objects support obj(*a), .get, .set, .parameters, .call).
    expect_close(actual, expected, ...), expect_equal(actual, expected, ...)
        for values already in hand.
    expect_raises(candidate, "dot", ValueError, a, b_of_another_length)
    expect_inputs_unchanged(candidate, reference, "dedupe", items)
    expect_working(candidate, reference, "dot", a, b)
        the guard of an error-path check (and of a property that only right values can show):
        the function must also compute the right values on an ordinary input, so that no-effort
        code (the identity, zeros, a constant, always raising) earns nothing from it.
    expect_shape(actual, (n, d), what=...), expect_at_least(value, bound, what=..., why=...)
        the parts of a property check that partly-right code may pass (a sign error keeps a
        length) but no-effort code fails: a floating tensor of the right shape, and a quantity
        the exercise fixes whatever the mistake (e.g. how fast the first of several parts changes).
    with confirmed_by(candidate, "dot", [(args, kwargs), ...]): ...
        a catalogued mistake is named only where it also behaves as the student's code on these inputs.

A mismatch raises `CheckFailure`, whose message is the feedback the student reads: the
first wrong index, expected and actual values, the max abs error, and the hint of every
catalogued mistake (solutions/mistakes) of the target whose output matches the student's,
in the student's language (`set_language`) and from the session's course (`set_course`), both set by the
grader's pytest plugin before each check.

The modules, one job each (imports go down this list, never up):
    expectations      the expect_* functions and CheckFailure
    mistakes          recognising catalogued mistakes in a wrong answer, their hints; confirmed_by
    runs              trusted code run on copies of the check's inputs (float64, or as given)
    trusted_results   what trusted code returned on inputs already seen in this run
    instructor_limit  the time limit of trusted code (references, mistakes)
    local_objects     LocalObject (the RemoteObject interface for trusted objects), copies of values
    comparison        comparing values and the sentence that says how they differ
    records           what a failing check leaves for the gradebook (matched mistakes, fingerprint)
    language          the feedback language
"""

from __future__ import annotations

from grader.sandbox import CandidateError  # so that `except CandidateError` means the same everywhere

from .expectations import (
    CheckFailure,
    expect_at_least,
    expect_behaviour,
    expect_call,
    expect_close,
    expect_equal,
    expect_inputs_unchanged,
    expect_raises,
    expect_shape,
    expect_working,
)
from .language import current_language, set_language
from .local_objects import LocalObject, local_class
from .mistakes import confirmed_by, matching_hints, mistakes_in, set_course
from .records import take_fingerprint, take_matched_mistakes

__all__ = [
    "CandidateError",
    "CheckFailure",
    "LocalObject",
    "confirmed_by",
    "current_language",
    "expect_at_least",
    "expect_behaviour",
    "expect_call",
    "expect_close",
    "expect_equal",
    "expect_inputs_unchanged",
    "expect_raises",
    "expect_shape",
    "expect_working",
    "local_class",
    "matching_hints",
    "set_language",
    "set_course",
    "mistakes_in",
    "take_fingerprint",
    "take_matched_mistakes",
]
