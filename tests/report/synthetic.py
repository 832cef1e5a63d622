"""Synthetic classes for the report tests: submissions built from the references and the
mistake catalogue (graded for real), and gradebooks written directly (for the statistics)."""

from __future__ import annotations

from pathlib import Path

from tests.first_course import catalogue

REPO = Path(__file__).resolve().parents[2]

# Submissions whose code misbehaves in each way the sandbox reports (module `rope`).
BROKEN = {
    "unreadable": "def apply_rope(x, positions=None, base=10000.0:\n    return x\n",
    "import_failed": "raise RuntimeError('left over from debugging')\n",
    "timeout": "while True:\n    pass\n",
    "limit": "print('x' * 400_000)\n",
    "crash": "import ctypes\n\n\ndef apply_rope(x, positions=None, base=10000.0):\n"
    "    return ctypes.string_at(0)   # reads address 0: SIGSEGV\n",
}


def reference(module: str) -> str:
    return (REPO / "solutions" / f"{module}.py").read_text(encoding="utf-8")


def with_mistake(mistake) -> str:
    """The reference module with one definition replaced by the mistake (what `verify` grades)."""
    return reference(mistake.module) + "\n\n" + mistake.source


def stub(module: str) -> str:
    return (REPO / "exercises" / f"{module}.py").read_text(encoding="utf-8")


def write_class(folder: Path, plan: list[tuple[str, str, str]]) -> None:
    """plan: (student, module, what) with what = "correct" | "stub" | a mistake id | a BROKEN key."""
    mistakes = {m.id: m for m in catalogue()}
    for student, module, what in plan:
        if what == "correct":
            code = reference(module)
        elif what == "stub":
            code = stub(module)
        elif what in BROKEN:
            code = BROKEN[what]
        else:
            code = with_mistake(mistakes[what])
        target = folder / student
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{module}.py").write_text(code, encoding="utf-8")


# ---- gradebooks written directly: large classes with a known plan ---------------------------

CHECKS = (
    ("test_{name}_values", 2.0, False),
    ("test_{name}_edge_cases", 1.0, False),
    ("test_{name}_hidden_cases", 1.0, True),
)


def outcome_of(k: int, exercise: str, mistakes_of: dict[str, list[str]]) -> str:
    """What student k handed in for `exercise`: "correct" for k % 10 < 5, a mistake for 5..8
    (the first four of the exercise's catalogue, cycling), "not_implemented" for 9; every 50th
    student's rope file timed out, every 97th is unreadable (they override the rest of rope)."""
    if exercise == "apply_rope" and k % 50 == 49:
        return "timeout"
    if exercise == "apply_rope" and k % 97 == 96:
        return "unreadable"
    band = k % 10
    if band < 5:
        return "correct"
    if band == 9 or not mistakes_of.get(exercise):
        return "not_implemented"
    return mistakes_of[exercise][(band - 5) % min(4, len(mistakes_of[exercise]))]


def synthetic_results(count: int):
    """(student, SubmissionResult) for `count` students, one submission per exercise module."""
    from tests.first_course import EXERCISES
    from grader.reporting.results import CheckResult, SubmissionResult

    mistakes_of: dict[str, list[str]] = {}
    for mistake in catalogue():
        mistakes_of.setdefault(mistake.target, []).append(mistake.id)
    modules: dict[str, list[str]] = {}
    for exercise in EXERCISES:
        modules.setdefault(exercise.module, []).append(exercise.name)
    for k in range(count):
        student = f"student-{k:05d}"
        for module, names in modules.items():
            tests, kinds = [], []
            for name in names:
                what = outcome_of(k, name, mistakes_of)
                for position, (pattern, points, hidden) in enumerate(CHECKS):
                    passed = what == "correct" or (what in mistakes_of.get(name, ()) and position == 1)
                    problem = {
                        "timeout": "import_timeout",
                        "unreadable": "unreadable",
                        "not_implemented": "not_implemented",
                    }.get(what, "")
                    mistakes = [what] if what in mistakes_of.get(name, ()) and not passed else []
                    output = "" if passed else (f"{name} is wrong at index [0]" if mistakes else problem)
                    tests.append(
                        CheckResult(
                            pattern.format(name=name),
                            name,
                            points if passed else 0.0,
                            points,
                            "passed" if passed else "failed",
                            output,
                            hidden,
                            mistakes,
                            problem,
                        )
                    )
                if what in ("timeout", "unreadable"):
                    kinds.append(what)
            score = sum(t.score for t in tests)
            problems = ["syntax error at line 3, column 1: invalid syntax"] if "unreadable" in kinds else []
            yield (
                student,
                SubmissionResult(
                    student=student,
                    submission=f"{module}.py",
                    sha256=f"{k:032x}{module:>32}"[:64],
                    score=score,
                    max_score=sum(t.max_score for t in tests),
                    tests=tests,
                    problems=problems,
                    lang="en",
                    problem_kinds=sorted(set(kinds)),
                ),
            )


def write_gradebook(path: Path, count: int, *, reruns: int = 0) -> None:
    """A gradebook of `count` synthetic students; the first `reruns` students' rope files were
    graded twice (an earlier, worse run first), so history and "latest run" matter."""
    from grader.reporting.gradebook import Gradebook

    with Gradebook(path) as book:
        book.ensure_seed(7)
        for index, (student, result) in enumerate(synthetic_results(count)):
            if result.submission == "rope.py" and int(student.split("-")[1]) < reruns:
                from dataclasses import replace

                earlier = replace(
                    result,
                    score=0.0,
                    sha256="0" * 64,
                    tests=[replace(t, score=0.0, status="failed", mistakes=["rope-clockwise"]) for t in result.tests],
                )
                book.record(
                    earlier, checks_hash="h", seed=7, uid=f"early-{student}", graded_at="2026-11-30T08:00:00+00:00"
                )
            book.record(
                result,
                checks_hash="h",
                seed=7,
                uid=f"{student}-{result.submission}",
                graded_at="2026-11-30T09:00:00+00:00",
            )
