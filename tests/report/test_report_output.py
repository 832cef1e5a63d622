"""The report over a larger synthetic gradebook (written directly, with a known plan): counts,
shares, latest-run logic, problem counts; and the output itself: deterministic, safe, atomic."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from coursegen.report import build_report, load_class
from tests.first_course import MODULES
from grader.reporting.gradebook import Gradebook
from grader.reporting.results import CheckResult, SubmissionResult
from tests.cli import run_cli
from tests.first_course import catalogue
from tests.report.synthetic import REPO, outcome_of, write_gradebook
from tests.nonempty import nonempty

N = 300
RERUNS = 10


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "gradebook.sqlite"
    write_gradebook(path, N, reruns=RERUNS)
    return path


@pytest.fixture(scope="module")
def data(book):
    return load_class(book, REPO)


def _plan() -> dict[str, Counter]:
    """exercise -> Counter of outcomes over the N students, straight from the plan."""
    mistakes_of: dict[str, list[str]] = {}
    for mistake in catalogue():
        mistakes_of.setdefault(mistake.target, []).append(mistake.id)
    from tests.first_course import EXERCISES

    return {e.name: Counter(outcome_of(k, e.name, mistakes_of) for k in range(N)) for e in EXERCISES}


def test_counts_and_shares_follow_the_plan(data):
    plan = _plan()
    found = {m.id: m for m in data.misconceptions}
    for mistake in nonempty(catalogue()):
        outcomes = plan[mistake.target]
        attempted = N - outcomes["not_implemented"] - outcomes["unreadable"]
        assert (found[mistake.id].count, found[mistake.id].attempted) == (outcomes[mistake.id], attempted), mistake.id
        assert found[mistake.id].share == pytest.approx(outcomes[mistake.id] / attempted)


def test_only_the_latest_run_counts(data):
    """The first RERUNS students' earlier rope run matched rope-clockwise on every check."""
    plan = _plan()["apply_rope"]
    clockwise = next(m for m in data.misconceptions if m.id == "rope-clockwise")
    assert clockwise.count == plan["rope-clockwise"]
    assert len(data.history["student-00000"]) == len(MODULES) + 1 and len(data.latest) == len(MODULES) * N


def test_problem_counts_follow_the_plan(data):
    plan = _plan()["apply_rope"]
    assert data.problem_counts["timeout"] == plan["timeout"] == N // 50
    assert data.problem_counts["unreadable"] == plan["unreadable"]
    assert {p.kind for p in data.problems} == {"timeout", "unreadable"}


def test_score_distribution_and_pass_rates_follow_the_plan(data):
    plan = _plan()
    for summary in nonempty(data.exercises):
        outcomes = plan[summary.name]
        assert summary.submitted == N
        assert summary.shares.count(1.0) == outcomes["correct"]
        mistaken = sum(
            n for what, n in outcomes.items() if what not in ("correct", "not_implemented", "timeout", "unreadable")
        )
        edge = next(c for c in summary.checks.values() if c.name.endswith("_edge_cases"))
        assert (edge.passed, edge.total) == (outcomes["correct"] + mistaken, N)
        assert summary.hidden_share == pytest.approx(outcomes["correct"] / N)


def _small_book(path: Path, students: list[str]) -> Path:
    with Gradebook(path) as book:
        for k, student in enumerate(students):
            tests = [
                CheckResult("test_rope_values", "apply_rope", 0.0, 2.0, "failed", "wrong", False, ["rope-clockwise"]),
                CheckResult("test_rope_hidden", "apply_rope", 1.0, 1.0, "passed", "", True),
            ]
            book.record(
                SubmissionResult(student, "rope.py", f"{k:064x}", 1.0, 3.0, tests),
                checks_hash="h",
                seed=1,
                uid=f"u{k}",
                graded_at="2026-11-30T09:00:00+00:00",
            )
    return path


def test_the_same_gradebook_gives_byte_identical_reports(book, tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    build_report(book, first, root=REPO)
    build_report(book, second, root=REPO)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert [f for f in files if (first / f).read_bytes() != (second / f).read_bytes()] == []
    assert "<svg" in (first / "index.html").read_text(encoding="utf-8")


def test_student_ids_cannot_inject_markup_or_script(tmp_path):
    evil = '<img src=x onerror="alert(1)"></script><script>alert(2)</script>'
    build_report(_small_book(tmp_path / "gb.sqlite", [evil, "bob"]), tmp_path / "out", root=REPO)
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert evil not in page and "&lt;img src=x" in page
    data = (tmp_path / "out" / "students.js").read_text(encoding="utf-8")
    assert "<" not in data and "\\u003cimg" in data


def test_a_folder_that_is_not_a_report_is_never_replaced(tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "mine.txt").write_text("keep me", encoding="utf-8")
    book = _small_book(tmp_path / "gb.sqlite", ["ana"])
    done = run_cli("report", "--gradebook", book, "-o", out, "--root", REPO, cwd=REPO)
    assert done.returncode == 2 and "is not a report written by `coursegen report`" in done.stderr
    assert [p.name for p in out.iterdir()] == ["mine.txt"]


def test_a_missing_gradebook_is_an_error_and_writes_nothing(tmp_path):
    done = run_cli("report", "--gradebook", tmp_path / "none.sqlite", "-o", tmp_path / "out", cwd=REPO)
    assert done.returncode == 2 and "none.sqlite: no such gradebook" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_report_is_replaced_by_the_next_one(tmp_path):
    out = tmp_path / "report"
    build_report(_small_book(tmp_path / "a.sqlite", ["ana"]), out, root=REPO)
    build_report(_small_book(tmp_path / "b.sqlite", ["ana", "bob", "cleo"]), out, root=REPO)
    assert "3 students" in (out / "index.html").read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []  # no staging left
