"""Behavioural evidence: what two students' code did on the same secret inputs (`coursegen similarity`).

From each student's latest runs (`Gradebook.runs()`), every check has an *outcome*: passed; failed
with a wrong output (its fingerprint, grader/fingerprint.py, grouped with the class's agreeing
fingerprints of the same check: same seed, same checks); or no answer (the problem's name: a stub,
a missing definition, a limit). Two students' outcomes are comparable only on checks graded with
the same seed and checks.

For a pair: `compared` checks both have, `same` of them with equal outcomes, and the *shared
evidence*: the checks where both failed with the same wrong output that no catalogued mistake
matched (a catalogued mistake's output is evidence of nothing: independent students make it), each
labelled "wrong value", "exception" (the same exception type where a value was due), or "edge-case
quirk" (a value where an exception was due, or the same inf/nan), with how many students of the
class gave that same output (`students`; the fewer, the more it says).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from grader.fingerprint import agree, parse

NO_ANSWER = "no answer"


@dataclass
class Outcome:
    token: str  # "passed", "wrong:<n>" (a class-wide group of agreeing outputs), or "problem:<name>"
    kind: str = ""  # for a wrong output: "wrong value", "exception", "edge-case quirk"
    catalogued: bool = False  # a catalogued mistake matched it


@dataclass
class Behaviour:
    outcomes: dict[str, dict[tuple[str, str, str], Outcome]] = field(
        default_factory=dict
    )  # student -> check -> outcome
    group_sizes: dict[tuple[tuple[str, str, str], str], int] = field(default_factory=dict)  # (check, token) -> students


def latest_runs(runs: list[dict], assignment: str | None) -> dict[str, list[dict]]:
    """Each student's latest run of every submission file (of `assignment`, when given)."""
    latest: dict[tuple[str, str], dict] = {}
    for run in sorted(runs, key=lambda r: r["id"]):
        if assignment is not None and run.get("assignment", "") != assignment:
            continue
        latest[(run["student"], run["submission"])] = run
    by_student: dict[str, list[dict]] = {}
    for (student, _), run in sorted(latest.items()):
        by_student.setdefault(student, []).append(run)
    return by_student


def read_behaviour(by_student: dict[str, list[dict]]) -> Behaviour:
    """Every student's outcome on every check, wrong outputs grouped across the class."""
    found = Behaviour()
    representatives: dict[tuple[str, str, str], list[dict]] = {}
    for student, runs in by_student.items():
        mine = found.outcomes.setdefault(student, {})
        for run in runs:
            for test in run["tests"]:
                check = (str(run["seed"]), str(run["checks_hash"]), test["name"])
                mine[check] = _outcome(test, representatives.setdefault(check, []))
                key = (check, mine[check].token)
                found.group_sizes[key] = found.group_sizes.get(key, 0) + 1
    return found


def _outcome(test: dict, representatives: list[dict]) -> Outcome:
    if test["status"] == "passed":
        return Outcome("passed")
    if test["problem"] not in ("", "raised", "returned"):
        return Outcome(f"problem:{test['problem']}")
    printed = parse(test.get("fingerprint", ""))
    if printed is None:
        return Outcome(f"problem:{NO_ANSWER}")
    for number, other in enumerate(representatives):
        if agree(other, printed):
            break
    else:
        representatives.append(printed)
        number = len(representatives) - 1
    return Outcome(f"wrong:{number}", _kind(printed), bool(test.get("mistakes")))


def _kind(printed: dict) -> str:
    if printed.get("kind") == "raised":
        return "exception"
    if printed.get("kind") == "returned":
        return "edge-case quirk"
    numbers = [printed.get("sum"), printed.get("abs"), *(printed.get("sample") or [])]
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
        return "edge-case quirk"
    return "wrong value"


def compare(behaviour: Behaviour, first: str, second: str) -> dict:
    """The behavioural evidence of one pair (see the module's docstring)."""
    mine, theirs = behaviour.outcomes.get(first, {}), behaviour.outcomes.get(second, {})
    both = sorted(set(mine) & set(theirs))
    same = [c for c in both if mine[c].token == theirs[c].token]
    shared = []
    for check in same:
        a, b = mine[check], theirs[check]
        if not a.token.startswith("wrong:") or a.catalogued or b.catalogued:
            continue
        shared.append({"check": check[2], "kind": a.kind, "students": behaviour.group_sizes[(check, a.token)]})
    return {"compared": len(both), "same": len(same), "shared": shared}
