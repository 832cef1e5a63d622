"""Assignments: what is graded, and out of what. Instructor data, never the submission's.

An assignment is a named set of exercises with their points (content/course.yaml `assignments:`,
or by default one per lesson with exercises, named by the lesson id). Its *definition* fixes
the maximum every student of it is graded out of:

    Assignment(id, title, exercises, points, due)    as the course declares it (plain data)
    read_check_marks(file) -> [CheckMarks]           each check's exercise, points and cases, read by ast
    check_points(checks_dir) -> {exercise: points}   the checks' declared points summed per exercise
    resolve(assignment, check_points) -> Definition  exercise -> points, the maximum, a hash
    apply(outcomes, definition) -> outcomes          only its exercises; points rescaled to overrides
    combine(student, results, definition)            one result per student: best file per exercise
    per_student(results, definition)                 a batch's per-file results combined per student
    public_part(definition, public_points)           the part a package of public checks only grades
    shipped_definition(root, id)                     the definition an exported package carries

Nothing here reads a submission: the grader sets every submission's exercises to the
definition's (grader.scaleout.batch), so a file that defines fewer names, or a notebook whose metadata
lists fewer, is charged the missing exercises' points ("not defined"), and the names of another
assignment are never graded nor counted. The definition's hash (of its id, exercises and points)
goes into the gradebook with every run, so a later change of course.yaml or of the checks'
points shows as another definition instead of silently changing stored grades.

This module imports no course code, no torch and no coursegen: the build (coursegen/assignments.py
reads course.yaml into `Assignment`s) and the grader (and a Gradescope bundle, from its
assignment.json) share it.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from grader.feedback import in_file
from grader.reporting.lateness import LatePolicy
from grader.reporting.results import CheckResult, SubmissionResult
from grader.errors import CoursegenError


class AssignmentError(CoursegenError):
    """The assignment cannot be used: unknown id, an exercise without checks, points that disagree."""


@dataclass(frozen=True)
class Assignment:
    """One assignment as the course declares it."""

    id: str
    title: str  # the English title (the LMS column, unless --title)
    exercises: tuple[str, ...]  # exercise names, in the course's order
    points: Mapping[str, float] = field(default_factory=dict)  # overrides: exercise -> its total points
    due: str | None = None  # ISO date or date-time, as written
    title_zh: str | None = None
    late: LatePolicy | None = None  # grader/reporting/lateness.py; None: no late policy


@dataclass(frozen=True)
class Definition:
    """What an assignment is graded out of: each exercise's points and the checks' own sum."""

    assignment: str
    exercises: tuple[tuple[str, float], ...]  # (exercise, points), in order
    natural: tuple[tuple[str, float], ...]  # (exercise, the points its checks declare)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.exercises)

    @property
    def max_score(self) -> float:
        return _round(sum(points for _, points in self.exercises))

    @property
    def hash(self) -> str:
        """sha256 of the id, the exercises and their points (canonical JSON)."""
        canonical = json.dumps(
            {"assignment": self.assignment, "exercises": [[n, _round(p)] for n, p in self.exercises]},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def short_hash(self) -> str:
        return self.hash[:12]

    def describe(self) -> str:
        """One line: `assignment hw-1 (dot 3, norm 2; out of 5; definition 1a2b3c4d5e6f)`."""
        parts = ", ".join(f"{name} {_points(points)}" for name, points in self.exercises)
        return f"assignment {self.assignment} ({parts}; out of {_points(self.max_score)}; definition {self.short_hash})"

    def to_json(self) -> dict:
        return {
            "assignment": self.assignment,
            "exercises": [[n, p] for n, p in self.exercises],
            "natural": [[n, p] for n, p in self.natural],
            "hash": self.hash,
        }

    @classmethod
    def from_json(cls, data: Mapping) -> Definition:
        definition = cls(
            str(data["assignment"]),
            tuple((str(n), float(p)) for n, p in data["exercises"]),
            tuple((str(n), float(p)) for n, p in data.get("natural", data["exercises"])),
        )
        if "hash" in data and data["hash"] != definition.hash:
            raise AssignmentError(f"assignment {definition.assignment}: the stored definition does not match its hash")
        return definition


def _round(value: float) -> float:
    return round(float(value), 6) + 0.0


def _points(value: float) -> str:
    return f"{value:g}"


# ---- the checks' declared points ---------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _literal(node: ast.AST) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


@dataclass(frozen=True)
class CheckMarks:
    """One check function's marks as the grader counts them (the closest mark wins, as pytest's
    get_closest_marker: the function's, then its class's, then the module's `pytestmark`)."""

    name: str
    line: int  # where the exercise mark that applies stands (the function's place where none does)
    column: int
    exercise: str | None
    points: float  # per case (@pytest.mark.points, default 1)
    cases: int  # the product of the literal @pytest.mark.parametrize lists

    @property
    def worth(self) -> float:
        return self.points * self.cases


def _marks(decorators: Sequence[ast.expr], where: str) -> tuple[str | None, float | None, int, ast.expr | None]:
    """(exercise, points, cases, the exercise mark) of one check's marks, outermost first."""
    exercise, points, cases, mark = None, None, 1, None
    for decorator in decorators:
        name = _dotted(decorator)
        if not isinstance(decorator, ast.Call):
            continue
        if name.endswith("mark.exercise") and decorator.args:
            value = _literal(decorator.args[0])
            if isinstance(value, str):
                exercise, mark = value, decorator
        elif name.endswith("mark.points") and decorator.args:
            value = _literal(decorator.args[0])
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise AssignmentError(f"{where}: @pytest.mark.points needs a number literal")
            points = float(value)
        elif name.endswith("mark.parametrize"):
            values = decorator.args[1] if len(decorator.args) > 1 else None
            if not isinstance(values, (ast.List, ast.Tuple)):
                raise AssignmentError(
                    f"{where}: @pytest.mark.parametrize with values that are not a literal list: "
                    "its points cannot be counted without running it"
                )
            cases *= len(values.elts)
    return exercise, points, cases, mark


def read_check_marks(path: Path, display: str | None = None) -> list[CheckMarks]:
    """Every check (`test*` function, or `test*` method of a `Test*` class) of one check file with
    its marks, read from the file's syntax: nothing is imported or run. The one reader of what a
    check is worth: the site, `coursegen check`, assignments and verify all count with it."""
    where_file = display or str(path)
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=where_file)
    except (OSError, SyntaxError, ValueError) as exc:
        raise AssignmentError(f"{where_file}: cannot read the check file ({exc})") from None
    module_marks = _pytestmark(tree.body)

    found: list[CheckMarks] = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef, outer: list[ast.expr]) -> None:
        exercise, points, cases, mark = _marks(
            [*module_marks, *outer, *node.decorator_list], f"{where_file}:{node.lineno}"
        )
        place = mark or node
        found.append(
            CheckMarks(
                node.name, place.lineno, place.col_offset + 1, exercise, 1.0 if points is None else points, cases
            )
        )

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            add(node, [])
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            class_marks = [*node.decorator_list, *_pytestmark(node.body)]
            for inner in node.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner.name.startswith("test"):
                    add(inner, class_marks)
    return found


def _pytestmark(body: list[ast.stmt]) -> list[ast.expr]:
    """The marks a module or class body assigns to `pytestmark` (one mark or a list of them)."""
    marks: list[ast.expr] = []  # the last assignment is the one pytest sees
    for item in body:
        if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in item.targets):
            marks = list(item.value.elts) if isinstance(item.value, (ast.List, ast.Tuple)) else [item.value]
    return marks


def check_points(checks_dir: Path | str) -> dict[str, float]:
    """exercise -> the sum of the points its checks declare (@pytest.mark.points, default 1; a
    module's or class's `pytestmark`, class decorators; each case of a literal
    @pytest.mark.parametrize), read from the check files' syntax (read_check_marks)."""
    totals: dict[str, float] = {}
    for path in sorted(Path(checks_dir).rglob("test_*.py")):
        for check in read_check_marks(path):
            if check.exercise is not None:  # coursegen check / the grader report a check without its exercise
                totals[check.exercise] = _round(totals.get(check.exercise, 0.0) + check.worth)
    return totals


# ---- resolution --------------------------------------------------------------------------------


def resolve(assignment: Assignment, points_of_checks: Mapping[str, float]) -> Definition:
    """The assignment's definition: each exercise worth its override, else what its checks declare."""
    missing = [name for name in assignment.exercises if not points_of_checks.get(name)]
    if missing:
        raise AssignmentError(
            f"assignment {assignment.id}: no check with points grades {', '.join(missing)} "
            "(expected @pytest.mark.exercise(name) on a check in grader/checks/test_*.py)"
        )
    natural = tuple((name, _round(points_of_checks[name])) for name in assignment.exercises)
    exercises = tuple(
        (name, _round(assignment.points.get(name, points_of_checks[name]))) for name in assignment.exercises
    )
    return Definition(assignment.id, exercises, natural)


def public_part(definition: Definition, public_points: Mapping[str, float]) -> Definition:
    """The part of `definition` that its public checks grade (a Classroom package ships nothing
    else): each exercise with public checks, worth its share of the exercise's points, so that every
    public check scores exactly what it scores in the whole definition."""
    natural = dict(definition.natural)
    kept = [(name, points) for name, points in definition.exercises if public_points.get(name)]
    return Definition(
        definition.assignment,
        tuple((name, _round(points * public_points[name] / natural[name])) for name, points in kept),
        tuple((name, _round(public_points[name])) for name, _ in kept),
    )


ASSIGNMENTS_JSON = "assignments.json"  # in exercises/ of an exported grading package: {id: Definition.to_json()}


def shipped_definition(root: Path | str, assignment_id: str) -> Definition | None:
    """The definition of `assignment_id` that an exported grading package carries (exercises/
    assignments.json, coursegen/exports/classroom.py), where `root` has no content/course.yaml;
    None for a course folder or a package that carries none. AssignmentError for another id."""
    root = Path(root)
    shipped = root / "exercises" / ASSIGNMENTS_JSON
    if (root / "content" / "course.yaml").is_file() or not shipped.is_file():
        return None
    known = json.loads(shipped.read_text(encoding="utf-8"))
    if assignment_id not in known:
        names = ", ".join(sorted(known)) or "none"
        raise AssignmentError(f"no assignment {assignment_id!r} in this grading package; expected one of: {names}")
    return Definition.from_json(known[assignment_id])


def find(assignments: Iterable[Assignment], assignment_id: str) -> Assignment:
    known = list(assignments)
    for assignment in known:
        if assignment.id == assignment_id:
            return assignment
    names = ", ".join(a.id for a in known) or "none"
    raise AssignmentError(f"no assignment {assignment_id!r} in content/course.yaml; expected one of: {names}")


# ---- grading against a definition ----------------------------------------------------------------


def apply(outcomes: Sequence[CheckResult], definition: Definition) -> list[CheckResult]:
    """The outcomes of the definition's exercises only, in its order, each check's points scaled so
    that an exercise is worth its points. The checks run must declare the points the definition
    was resolved with (else AssignmentError: the grader and the definition disagree)."""
    natural = dict(definition.natural)
    wanted = dict(definition.exercises)
    kept: list[CheckResult] = []
    for name in definition.names:
        mine = [o for o in outcomes if o.exercise == name]
        declared = _round(sum(o.max_score for o in mine))
        if declared != natural[name]:
            raise AssignmentError(
                f"assignment {definition.assignment}: the checks of {name} that ran are worth {_points(declared)}, "
                f"the definition counts {_points(natural[name])}; the checks changed while grading?"
            )
        factor = wanted[name] / declared if declared else 0.0
        for outcome in mine:
            if factor == 1.0:
                kept.append(outcome)
            else:
                kept.append(
                    replace(outcome, score=_round(outcome.score * factor), max_score=_round(outcome.max_score * factor))
                )
    return kept


def mark(result: SubmissionResult, definition: Definition) -> SubmissionResult:
    """The result with its assignment, definition and what it was graded against."""
    result.assignment = definition.assignment
    result.definition = definition.hash
    result.graded_against = definition.describe()
    result.max_score = definition.max_score
    return result


def combine(student: str, results: Sequence[SubmissionResult], definition: Definition) -> SubmissionResult:
    """One result per student: for each exercise of the definition, the checks of the file that
    scored best on it (on a tie, a file that defines it before one that does not, then the first by
    name), so that each exercise is scored once; out of the definition's maximum whatever the
    files were. Each file's problems are kept, prefixed by its name when there are several."""
    ordered = sorted(results, key=lambda r: r.submission)
    tests: list[CheckResult] = []

    def rank(checks: list[CheckResult]) -> tuple[float, bool]:  # a file that defines it beats one that does not
        return sum(t.score for t in checks), not all(t.problem == "missing" for t in checks)

    for name in definition.names:
        best: list[CheckResult] | None = None
        for result in ordered:
            mine = [t for t in result.tests if t.exercise == name]
            if mine and (best is None or rank(mine) > rank(best)):
                best = mine
        tests.extend(best or [])
    several = len(ordered) > 1
    problems = [in_file(r.submission, p) if several else p for r in ordered for p in r.problems]
    kinds = list(dict.fromkeys(k for r in ordered for k in r.problem_kinds))
    digest = hashlib.sha256("\0".join(r.sha256 for r in ordered).encode()).hexdigest() if several else ordered[0].sha256
    combined = SubmissionResult(
        student=student,
        submission=", ".join(r.submission for r in ordered),
        sha256=digest,
        score=_round(sum(t.score for t in tests)),
        max_score=definition.max_score,
        tests=tests,
        problems=problems,
        lang=ordered[0].lang if ordered else "en",
        problem_kinds=kinds,
    )
    return mark(combined, definition)


def per_student(results: Sequence[SubmissionResult], definition: Definition) -> list[SubmissionResult]:
    """The per-file results of a batch combined per student (`combine`), in first-seen order."""
    by_student: dict[str, list[SubmissionResult]] = {}
    for result in results:
        by_student.setdefault(result.student, []).append(result)
    return [combine(student, mine, definition) for student, mine in by_student.items()]


# ---- reading a gradebook per assignment ---------------------------------------------------------


def pick_definition(
    runs: Sequence[Mapping], stored: Sequence[Definition], assignment_id: str, prefix: str | None = None
) -> Definition:
    """The definition of `assignment_id` a report or an export shows: the one given by hash
    `prefix`, else the one every student's latest runs of the assignment were graded against.
    AssignmentError when there is none, or when latest runs of different definitions are mixed
    (a re-grade against the new definition, or a choice with --definition, settles it)."""
    known = {d.hash: d for d in stored if d.assignment == assignment_id}
    mine = [r for r in runs if r.get("assignment") == assignment_id]
    if prefix is not None:
        chosen = [d for h, d in known.items() if h.startswith(prefix.lower())]
        if len(chosen) != 1:
            listed = ", ".join(d.describe() for d in known.values()) or "none"
            raise AssignmentError(
                f"--definition {prefix}: {'no' if not chosen else 'more than one'} stored definition of "
                f"assignment {assignment_id} starts so; stored: {listed}"
            )
        return chosen[0]
    if not mine:
        graded = sorted({str(r.get("assignment")) for r in runs if r.get("assignment")})
        raise AssignmentError(
            f"no run in the gradebook was graded against assignment {assignment_id!r} "
            f"(graded there: {', '.join(graded) or 'no assignment; grade with --assignment ID'})"
        )
    latest: dict[tuple, Mapping] = {}
    for run in mine:
        latest[(run["student"], run["submission"])] = run  # runs come oldest first
    students: dict[str, set[str]] = {}
    for run in latest.values():
        students.setdefault(str(run["definition"]), set()).add(str(run["student"]))
    if len(students) > 1:
        parts = "; ".join(
            f"{(known[h].describe() if h in known else 'definition ' + h[:12])}: {len(s)} student(s)"
            for h, s in students.items()
        )
        raise AssignmentError(
            f"assignment {assignment_id}: the latest runs were graded against different definitions ({parts}); "
            "re-grade every submission with `coursegen grade --assignment "
            f"{assignment_id} --new-definition`, or show one with --definition HASH"
        )
    (hash_,) = students
    if hash_ not in known:
        raise AssignmentError(f"assignment {assignment_id}: definition {hash_[:12]} is not stored in the gradebook")
    return known[hash_]
