"""New mistakes for the catalogue, found in a graded class (`coursegen mistakes propose`).

After a batch, every student who got an exercise wrong left, per failing check, a fingerprint of
the wrong output (grader/fingerprint.py, stored in the gradebook). Students whose outputs agree
on the run's inputs (same seed and same checks: the same inputs) — the same failing checks, and
the same wrong values within tolerance on each — made the same mistake. `propose(runs)` groups
them, exercise by exercise, and returns the groups of at least `min_students` students that no
catalogued mistake explains:

- a student-exercise counts when at least one of its checks failed with an answer (problem ""
  "raised" or "returned": the code ran and answered wrongly) and a fingerprint;
- it is left out when one catalogued mistake matched every failing check of the exercise (the
  mistake is known; one matching a single check by coincidence does not count),
  when every check passed (correct), when a failing check has no answer (a stub raising
  NotImplementedError, a missing definition, a time or memory limit, an import failure) or no
  fingerprint (runs graded before fingerprints were stored: re-grade to include them).

Each group keeps one member's run (the first student in sorted order) as the representative whose
code the draft mistake file shows. The grouping is deterministic: students in sorted order, each
joining the first group whose representative it agrees with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.fingerprint import agree, parse

ANSWERED = ("", "raised", "returned")


@dataclass
class Proposal:
    exercise: str
    students: list[str]
    failing_checks: list[str]
    representative: dict = field(repr=False)  # the run whose code the draft shows
    seed: str = ""
    checks_hash: str = ""


@dataclass
class _Member:
    student: str
    run: dict
    failing: dict[str, dict]  # check name -> parsed fingerprint


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
        groups: list[list[_Member]] = []
        for member in sorted(candidates, key=lambda m: m.student):
            for group in groups:
                if _same_mistake(group[0], member):
                    group.append(member)
                    break
            else:
                groups.append([member])
        for group in groups:
            students = sorted({m.student for m in group})
            if len(students) >= min_students:
                proposals.append(
                    Proposal(
                        exercise=exercise,
                        students=students,
                        failing_checks=sorted(group[0].failing),
                        representative=group[0].run,
                        seed=seed,
                        checks_hash=checks_hash,
                    )
                )
    proposals.sort(key=lambda p: (order.get(p.exercise, 0), -len(p.students), p.students))
    return proposals


def _same_mistake(first: _Member, second: _Member) -> bool:
    if set(first.failing) != set(second.failing):
        return False
    return all(agree(first.failing[name], second.failing[name]) for name in first.failing)


def _explained(failing: list[dict]) -> bool:
    """Whether one catalogued mistake explains every failing check of an exercise (its output
    matched on each). A mistake that matches one check by coincidence explains nothing."""
    common = set(failing[0]["mistakes"])
    for check in failing[1:]:
        common &= set(check["mistakes"])
    return bool(common)


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
