"""What the class report shows about the exercises, computed from the gradebook's runs.

Only the latest run of every (student, submission) counts; earlier runs are each student's
history. Definitions the report (and docs/instructors.md) rely on:

- a student *submitted* an exercise when one of their latest runs has checks of it; their
  score on it is the best of those runs;
- a student *attempted* an exercise when their code for it ran and answered at least one check:
  some check of it failed for another reason than "missing", "not_implemented" or
  "unreadable" (grader/reporting/problems.py), or passed;
- a misconception's share = students whose output matched the mistake on any check of its
  exercise / students who attempted that exercise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, Any

from grader.feedback import Problem, shown
from grader.reporting.problems import KINDS

from .catalogue import CatalogueItem

NOT_ATTEMPTED = {"missing", "not_implemented", "unreadable"}


@dataclass
class CheckRate:
    name: str
    hidden: bool
    points: float
    passed: int = 0
    total: int = 0


@dataclass
class ExerciseSummary:
    name: str
    module: str
    max_score: float
    submitted: int = 0
    attempted: int = 0
    shares: list[float] = field(default_factory=list)  # each submitting student's best score / max
    checks: dict[str, CheckRate] = field(default_factory=dict)
    public_share: float | None = None  # mean share of the public points earned
    hidden_share: float | None = None


@dataclass
class Misconception:
    id: str
    exercise: str
    hint: dict[str, str]
    students: list[str]
    attempted: int

    @property
    def count(self) -> int:
        return len(self.students)

    @property
    def share(self) -> float:
        return self.count / self.attempted if self.attempted else 0.0


@dataclass
class ProblemRow:
    kind: str
    student: str
    submission: str
    message: Problem  # a kept message kind (grader.feedback.Said), or a sentence an older run stored

    def message_in(self, lang: str) -> str:
        return shown(self.message, lang)


@dataclass
class ClassData:
    students: list[str]
    latest: list[dict]  # the latest run of every (student, submission)
    history: dict[str, list[dict]]  # every run of a student, oldest first
    exercises: list[ExerciseSummary]
    misconceptions: list[Misconception]  # ranked: largest share first
    problems: list[ProblemRow]
    problem_counts: dict[str, int]  # kind -> submissions, in grader.reporting.problems.KINDS order
    definition: Any = None  # grader.reporting.assignments.Definition shown (coursegen report --assignment), or None
    proposals: list = field(default_factory=list)  # grader.reporting.proposals.Proposal: uncatalogued shared mistakes
    drafts: dict = field(default_factory=dict)  # (exercise, students) -> link to its draft (report --proposals)
    similarity: Any = None  # coursegen.report.integrity.SimilarityView (report --similarity), or None
    lateness: dict = field(default_factory=dict)  # student -> the gradebook's latest lateness row of the definition


def latest_runs(runs: list[dict]) -> list[dict]:
    """The latest run (highest id) of every (student, submission), sorted by student, submission."""
    latest: dict[tuple[str, str], dict] = {}
    for run in runs:
        key = (run["student"], run["submission"])
        if key not in latest or run["id"] > latest[key]["id"]:
            latest[key] = run
    return [latest[key] for key in sorted(latest)]


def summarise(runs: list[dict], exercises: list[tuple[str, str]], mistakes: Sequence[CatalogueItem]) -> ClassData:
    """`exercises`: (name, module) in course order; `mistakes`: the catalogue (objects with
    id, target, hint)."""
    latest = latest_runs(runs)
    history: dict[str, list[dict]] = {}
    for run in sorted(runs, key=lambda r: r["id"]):
        history.setdefault(run["student"], []).append(run)
    students = sorted(history)

    # per (exercise, student): the checks of every latest run that graded the exercise
    by_exercise: dict[str, dict[str, list[list[dict]]]] = {name: {} for name, _ in exercises}
    for run in latest:
        groups: dict[str, list[dict]] = {}
        for check in run["tests"]:
            groups.setdefault(check["exercise"], []).append(check)
        for name, checks in groups.items():
            by_exercise.setdefault(name, {}).setdefault(run["student"], []).append(checks)

    summaries = []
    attempted_by: dict[str, set[str]] = {}
    matched_by: dict[str, set[str]] = {}
    modules = dict(exercises)
    for name in by_exercise:
        per_student = by_exercise[name]
        if not per_student:
            continue
        summary = ExerciseSummary(name, modules.get(name, ""), 0.0)
        attempted: set[str] = set()
        public_shares: list[float] = []
        hidden_shares: list[float] = []
        for student, check_lists in sorted(per_student.items()):
            best = max(check_lists, key=lambda cs: sum(c["score"] for c in cs))
            top = sum(c["max_score"] for c in best)
            summary.max_score = max(summary.max_score, top)
            summary.shares.append(sum(c["score"] for c in best) / top if top else 0.0)
            for check in best:
                rate = summary.checks.setdefault(
                    check["name"], CheckRate(check["name"], check["hidden"], check["max_score"])
                )
                rate.total += 1
                rate.passed += check["status"] == "passed"
            for hidden, bucket in ((False, public_shares), (True, hidden_shares)):
                part = [c for c in best if c["hidden"] == hidden]
                points = sum(c["max_score"] for c in part)
                if points:
                    bucket.append(sum(c["score"] for c in part) / points)
            for checks in check_lists:
                if any(c["status"] == "passed" or c["problem"] not in NOT_ATTEMPTED for c in checks):
                    attempted.add(student)
                for check in checks:
                    for mistake_id in check["mistakes"]:
                        matched_by.setdefault(mistake_id, set()).add(student)
        summary.submitted = len(per_student)
        summary.attempted = len(attempted)
        summary.public_share = sum(public_shares) / len(public_shares) if public_shares else None
        summary.hidden_share = sum(hidden_shares) / len(hidden_shares) if hidden_shares else None
        attempted_by[name] = attempted
        summaries.append(summary)

    misconceptions = []
    for mistake in mistakes:
        attempted = attempted_by.get(mistake.target, set())
        matched = sorted(matched_by.get(mistake.id, set()) & attempted)
        misconceptions.append(Misconception(mistake.id, mistake.target, dict(mistake.hint), matched, len(attempted)))
    misconceptions.sort(key=lambda m: (-m.share, -m.count, m.id))

    problems = []
    counts = {kind: 0 for kind in KINDS}
    for run in latest:
        for kind in run.get("problem_kinds") or []:  # [] for runs graded before gradebook schema 2
            counts[kind] = counts.get(kind, 0) + 1
            problems.append(ProblemRow(kind, run["student"], run["submission"], _message(run, kind)))
    return ClassData(students, latest, history, summaries, misconceptions, problems, counts)


def _message(run: dict, kind: str) -> Problem:
    """The first sentence the student read about this kind of problem."""
    from grader.reporting.problems import kind_of

    if kind == "unreadable" and run["problems"]:
        return run["problems"][-1]
    for check in run["tests"]:
        if kind_of(check["problem"]) == kind and not check["hidden"]:
            return check["output"].splitlines()[0] if check["output"] else check["problem"]
    for check in run["tests"]:
        if kind_of(check["problem"]) == kind:
            return check["problem"]
    return run["problems"][0] if run["problems"] else kind
