"""grader/reporting/proposals.py's grouping rule on runs written here (what `Gradebook.runs()`
returns): what is incidental (a raise, inf) does not split a group, a real difference does, and a
catalogued mistake stays out even beside an edge case where its output differs."""

from __future__ import annotations

import json

from grader.fingerprint import fingerprint
from grader.reporting.proposals import propose

CHECKS = [f"test_loss_{i}" for i in range(6)]


def _run(number: int, student: str, outcomes: list) -> dict:
    """outcomes[i]: None (passed), a float (that wrong value), "inf", "raise", or ("mistake", value, id)."""
    tests = []
    for name, outcome in zip(CHECKS, outcomes):
        test = dict(name=name, exercise="loss", status="failed", mistakes=[], problem="", fingerprint="")
        if outcome is None:
            test["status"] = "passed"
        elif outcome == "raise":
            test.update(problem="raised", fingerprint=fingerprint("raised", "IndexError"))
        elif outcome == "inf":
            test["fingerprint"] = fingerprint("value", [float("inf")])
        elif isinstance(outcome, tuple):
            test.update(fingerprint=fingerprint("value", [outcome[1]]), mistakes=[outcome[2]])
        else:
            test["fingerprint"] = fingerprint("value", [float(outcome)])
        tests.append(test)
    return dict(id=number, student=student, seed="1", checks_hash="h", submission=f"{student}/x.py", tests=tests)


BITS = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # the misconception's wrong value on each check


def test_an_edge_case_raise_or_inf_does_not_split_a_group():
    runs = [
        _run(1, "a", BITS),
        _run(2, "b", [*BITS[:3], "raise", *BITS[4:]]),
        _run(3, "c", [*BITS[:2], "inf", *BITS[3:]]),
        _run(4, "correct", [None] * 6),
    ]
    (group,) = propose(runs)
    assert group.students == ["a", "b", "c"]
    assert group.distinguishing_checks == CHECKS  # each check: at least two of three agree


def test_students_agreeing_on_too_few_checks_are_not_grouped():
    other = [2.0, 3.0, 40.0, 50.0, 60.0, 70.0]  # agrees on two of six
    runs = [_run(1, "a", BITS), _run(2, "b", other)]
    assert propose(runs) == []
    assert json.dumps([p.students for p in propose(runs + [_run(3, "c", other)])]) == '[["b", "c"]]'


def test_a_catalogued_mistake_with_one_differing_edge_case_stays_out():
    known = [("mistake", v, "loss-summed") for v in BITS]
    runs = [
        _run(1, "k1", [*known[:5], 99.0]),  # one value differs from the catalogued mistake's
        _run(2, "k2", [*known[:4], "raise", 98.0]),
    ]
    assert propose(runs) == []
