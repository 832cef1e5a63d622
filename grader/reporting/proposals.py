"""New mistakes for the catalogue, found in a graded class (`coursegen mistakes propose`).

After a batch, every student who got an exercise wrong left, per failing check, a fingerprint of
the wrong output (grader/fingerprint.py, stored in the gradebook). Students whose wrong outputs
agree on the run's inputs (same seed and same checks: the same inputs) made the same mistake.
`propose(runs)` groups them, exercise by exercise, and returns the groups of at least
`min_students` students that no catalogued mistake explains.

Which student-exercises take part:

- one with at least one failing check with an answer (problem "", "raised" or "returned": the
  code ran and answered wrongly) and a fingerprint;
- not one that one catalogued mistake explains: the same mistake matched at least AGREEMENT (two
  thirds; all when there are one or two) of the failing checks where the code returned a value (a
  raise or a non-finite value on an edge case beside them does not make a known mistake new; one
  mistake matching a single check of several by coincidence explains nothing);
- not one whose checks all passed (correct), nor one with a failing check without an answer (a stub
  raising NotImplementedError, a missing definition, a time or memory limit, an import failure) or
  without a fingerprint (runs graded before fingerprints were stored: re-grade to include them).

The grouping rule (tolerant of what is incidental). A failing check is *evidence* for a student
when the code returned a finite value there (kind "value" or "changed", every number finite); it
is *incidental* when the code raised, returned where an exception was due, or returned a value
with inf or nan in it: edge cases on which students with one misconception often differ. Two
students agree when, over the checks where at least one of them has evidence and neither has an
incidental failure, their wrong outputs agree (`grader.fingerprint.agree`) on at least
AGREEMENT (two thirds) of them, and on at least one. A check one of them passes and the other
fails with evidence counts against. Two students with no evidence at all (only exceptions) agree
only when they fail the same checks with the same exception types.

Students are taken in sorted order; each joins the first group with at least half of whose
members it agrees (the first student of a group is its representative, whose code the draft
shows), else starts one. A group's *distinguishing checks* are the checks on which at least half
of its members fail with agreeing evidence: what the draft's hint should explain. The grouping is
deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from grader.fingerprint import agree, parse

ANSWERED = ("", "raised", "returned")
AGREEMENT = 2 / 3  # the share of the compared checks on which two students' wrong outputs must agree
EVIDENCE_KINDS = ("value", "changed")  # a failing check where the code returned a value


@dataclass
class Proposal:
    exercise: str
    students: list[str]
    failing_checks: list[str]
    representative: dict = field(repr=False)  # the run whose code the draft shows
    seed: str = ""
    checks_hash: str = ""
    distinguishing_checks: list[str] = field(default_factory=list)  # where most members agree on a wrong value


@dataclass
class _Member:
    student: str
    run: dict
    failing: dict[str, dict]  # check name -> parsed fingerprint

    @property
    def evidence(self) -> dict[str, dict]:
        """The failing checks where the code returned a finite value."""
        return {name: p for name, p in self.failing.items() if is_evidence(p)}

    @property
    def incidental(self) -> set[str]:
        return {name for name, p in self.failing.items() if not is_evidence(p)}


def is_evidence(fingerprint: dict) -> bool:
    """Whether a failing check's fingerprint is a finite value returned (see the module's docstring)."""
    if fingerprint.get("kind") not in EVIDENCE_KINDS:
        return False
    numbers = [fingerprint.get("sum"), fingerprint.get("abs"), *(fingerprint.get("sample") or [])]
    return all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers)


def propose(runs: list[dict], *, min_students: int = 2) -> list[Proposal]:
    """Groups of students sharing an uncatalogued wrong answer, from `Gradebook.runs()`:
    sorted by exercise (in the order of the runs' checks), then largest group first."""
    members: dict[tuple[str, str, str], list[_Member]] = {}  # (seed, checks_hash, exercise)
    order: dict[str, int] = {}
    for run in _latest_per_student_exercise(runs):
        member, exercise = run["member"], run["exercise"]
        order.setdefault(exercise, len(order))
        members.setdefault((str(run["seed"]), str(run["checks_hash"]), exercise), []).append(member)
    proposals: list[Proposal] = []
    for (seed, checks_hash, exercise), candidates in members.items():
        for group in group_members(candidates):
            students = sorted({m.student for m in group})
            if len(students) >= min_students:
                proposals.append(
                    Proposal(
                        exercise=exercise,
                        students=students,
                        failing_checks=sorted({name for m in group for name in m.failing}),
                        representative=group[0].run,
                        seed=seed,
                        checks_hash=checks_hash,
                        distinguishing_checks=_distinguishing(group),
                    )
                )
    proposals.sort(key=lambda p: (order.get(p.exercise, 0), -len(p.students), p.students))
    return proposals


def group_members(candidates: list[_Member]) -> list[list[_Member]]:
    """The students of one exercise (one seed and checks) in groups, by the rule of the module's docstring."""
    groups: list[list[_Member]] = []
    for member in sorted(candidates, key=lambda m: m.student):
        for group in groups:
            agreeing = sum(1 for other in group if same_mistake(other, member))
            if 2 * agreeing >= len(group) and agreeing:
                group.append(member)
                break
        else:
            groups.append([member])
    return groups


def same_mistake(first: _Member, second: _Member) -> bool:
    """Whether two students' wrong outputs on one exercise agree (the module's docstring)."""
    mine, theirs = first.evidence, second.evidence
    if not mine and not theirs:  # only exceptions: the same ones on the same checks
        if set(first.failing) != set(second.failing):
            return False
        return all(agree(first.failing[name], second.failing[name]) for name in first.failing)
    compared = (set(mine) | set(theirs)) - first.incidental - second.incidental
    agreeing = sum(1 for name in compared if name in mine and name in theirs and agree(mine[name], theirs[name]))
    return agreeing >= 1 and agreeing >= AGREEMENT * len(compared)


def _distinguishing(group: list[_Member]) -> list[str]:
    """The checks on which at least half of the group fail with evidence agreeing with the most
    common wrong output there."""
    names = sorted({name for m in group for name in m.evidence})
    found = []
    for name in names:
        prints = [m.evidence[name] for m in group if name in m.evidence]
        best = max(sum(1 for q in prints if agree(p, q)) for p in prints)
        if 2 * best >= len(group):
            found.append(name)
    return found


def _explained(failing: list[dict]) -> bool:
    """Whether one catalogued mistake explains an exercise's wrong answers: it matched at least
    AGREEMENT of the failing checks where the code returned a finite value (all of them when there
    are one or two; raises and non-finite values on edge cases beside them do not count), the same
    tolerance the grouping has. A mistake that matches one check of several by coincidence explains
    nothing."""
    valued = [t for t in failing if (p := parse(t.get("fingerprint", ""))) is not None and is_evidence(p)]
    considered = valued or failing
    counts: dict[str, int] = {}
    for check in considered:
        for mistake in set(check["mistakes"]):
            counts[mistake] = counts.get(mistake, 0) + 1
    best = max(counts.values(), default=0)
    needed = len(considered) if len(considered) <= 2 else math.ceil(AGREEMENT * len(considered))
    return best >= needed and best > 0


def _latest_per_student_exercise(runs: list[dict]) -> list[dict]:
    """One entry per (student, exercise): the latest run that graded the exercise, when it is a
    wrong answer no catalogued mistake explains (see the module's docstring)."""
    latest: dict[tuple[str, str], dict] = {}
    for run in sorted(runs, key=lambda r: r["id"]):
        for exercise in dict.fromkeys(t["exercise"] for t in run["tests"]):
            latest[(run["student"], exercise)] = run
    entries = []
    for (student, exercise), run in sorted(latest.items()):
        checks = [t for t in run["tests"] if t["exercise"] == exercise]
        failing = [t for t in checks if t["status"] != "passed"]
        if not failing or _explained(failing):
            continue
        if any(t["problem"] not in ANSWERED for t in failing):
            continue
        prints = {t["name"]: parse(t.get("fingerprint", "")) for t in failing}
        if any(p is None for p in prints.values()):
            continue
        member = _Member(student, run, {name: p for name, p in prints.items() if p is not None})
        entries.append({"member": member, "exercise": exercise, "seed": run["seed"], "checks_hash": run["checks_hash"]})
    return entries
