"""A synthetic class graded for real (sandbox, checks, gradebook), then summarised: every
catalogued mistake is handed in once, RoPE's in known proportions, next to correct code, a stub
and one submission per kind of problem. Expected counts and shares come from the class plan."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections import Counter

import pytest

from coursegen.report import load_class
from tests.first_course import BY_NAME, exercises_in
from tests.first_course import catalogue
from tests.report.synthetic import BROKEN, REPO, write_class

pytestmark = pytest.mark.slow

MISTAKES = catalogue()
MODULES = sorted({m.module for m in MISTAKES})
ROPE_EXTRA = {"rope-clockwise": 3, "rope-half-split": 2, "rope-ignores-positions": 1}  # on top of one each
ROPE_CORRECT = 5


def _plan() -> list[tuple[str, str, str]]:
    plan = [(f"m-{m.id}", m.module, m.id) for m in MISTAKES]
    plan += [(f"x-{mistake}-{k}", "rope", mistake) for mistake, extra in ROPE_EXTRA.items() for k in range(extra)]
    plan += [(f"ok-{module}", module, "correct") for module in MODULES if module != "rope"]
    plan += [(f"ok-rope-{k}", "rope", "correct") for k in range(ROPE_CORRECT)]
    plan += [("stub-rope", "rope", "stub")]
    plan += [(f"broken-{kind}", "rope", kind) for kind in BROKEN]
    return plan


PLAN = _plan()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    write_class(folder / "submissions", PLAN)
    book = folder / "gradebook.sqlite"
    env = {"COURSEGEN_SANDBOX_LIMITS": "import_seconds=4"}
    import os

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coursegen",
            "grade",
            str(folder / "submissions"),
            "--gradebook",
            str(book),
            "--workers",
            "2",
            "--format",
            "json",
            "-o",
            str(folder / "results.json"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1500,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return folder, book, load_class(book, REPO)


def _attempted(module: str) -> int:
    """Students whose code for `module` ran: mistakes, correct ones and the broken-but-running."""
    ran = [p for p in PLAN if p[1] == module and p[2] not in ("stub", "unreadable")]
    return len(ran)


def _matched_in_gradebook(book) -> dict[str, set[str]]:
    """student -> every mistake id stored on their checks, read with plain SQL."""
    db = sqlite3.connect(book)
    try:
        matched: dict[str, set[str]] = {}
        for student, mistakes in db.execute(
            "SELECT r.student, c.mistakes FROM runs r JOIN checks c ON c.run_id = r.id"
        ):
            matched.setdefault(student, set()).update(json.loads(mistakes))
        return matched
    finally:
        db.close()


def test_the_grader_stores_each_students_own_mistake(graded):
    _, book, _ = graded
    matched = _matched_in_gradebook(book)
    assert [p for p in PLAN if p[2] in {m.id for m in MISTAKES} and p[2] not in matched[p[0]]] == []
    assert all(not matched.get(p[0]) for p in PLAN if p[2] in ("correct", "stub", *BROKEN))


def test_every_catalogued_mistake_is_counted_once_per_student_who_made_it(graded):
    _, book, data = graded
    # Some mistakes give the same output on some check as another of the same exercise (the
    # student then reads both hints): those students count for both.
    counted = Counter(mistake for mistakes in _matched_in_gradebook(book).values() for mistake in mistakes)
    found = {m.id: m for m in data.misconceptions}
    assert {m.id: found[m.id].count for m in MISTAKES} == {m.id: counted[m.id] for m in MISTAKES}
    planned = Counter({m.id: 1 for m in MISTAKES}) + Counter(ROPE_EXTRA)
    assert {i: found[i].count for i in planned if i.startswith("rope-")} == {
        i: n for i, n in planned.items() if i.startswith("rope-")
    }  # RoPE's four are told apart
    assert all(found[i].count >= n for i, n in planned.items())


def _rope_attempted() -> int:
    """Counted from the plan's parts: every rope file whose code ran (each implements apply_rope,
    whichever of the module's exercises its mistake is in); the unreadable one never ran."""
    return sum(1 for m in MISTAKES if m.module == "rope") + sum(ROPE_EXTRA.values()) + ROPE_CORRECT + len(BROKEN) - 1


def _rope_count(mistake: str) -> int:
    """Students planned to make a RoPE mistake: one each from the catalogue, plus the extra ones."""
    return 1 + ROPE_EXTRA[mistake]


def test_shares_are_of_the_students_who_attempted_the_exercise(graded):
    _, _, data = graded
    found = {m.id: m for m in data.misconceptions}
    attempted = _rope_attempted()
    assert found["rope-clockwise"].attempted == _attempted("rope") == attempted
    assert found["rope-clockwise"].share == pytest.approx(_rope_count("rope-clockwise") / attempted)
    assert found["rope-half-split"].share == pytest.approx(_rope_count("rope-half-split") / attempted)
    for mistake in MISTAKES:
        if mistake.module != "rope":
            assert found[mistake.id].attempted == _attempted(mistake.module), mistake.id


def test_misconceptions_are_ranked_by_share(graded):
    _, _, data = graded
    shares = [m.share for m in data.misconceptions]
    assert shares == sorted(shares, reverse=True)
    rope = [m.id for m in data.misconceptions if m.exercise == "apply_rope"]
    assert rope == ["rope-clockwise", "rope-half-split", "rope-ignores-positions", "rope-exponent-i-over-d"]


def test_each_kind_of_problem_is_counted(graded):
    _, _, data = graded
    assert {k: v for k, v in data.problem_counts.items() if v} == {kind: 1 for kind in BROKEN}
    assert {(p.kind, p.student) for p in data.problems} == {(kind, f"broken-{kind}") for kind in BROKEN}


def test_exercise_summaries_count_submissions_and_pass_rates(graded):
    _, _, data = graded
    rope = next(e for e in data.exercises if e.name == "apply_rope")
    submitted = sum(1 for p in PLAN if p[1] == "rope")
    assert rope.submitted == submitted and rope.attempted == _rope_attempted()
    # every point: the correct files, and those whose mistake is in another of rope's exercises
    right_rope = ROPE_CORRECT + sum(1 for m in MISTAKES if m.module == "rope" and m.target != "apply_rope")
    assert sorted(rope.shares).count(1.0) == right_rope
    for check in rope.checks.values():
        assert check.total == submitted and check.passed >= ROPE_CORRECT
    assert rope.public_share is not None and rope.hidden_share is not None
    encode = next(e for e in data.exercises if e.name == "encode")
    tokens = sum(1 for p in PLAN if p[1] == "tokens")
    assert encode.submitted == tokens and set(exercises_in("tokens")) >= {BY_NAME["encode"]}


def test_the_report_command_writes_the_numbers_in_both_languages(graded, tmp_path):
    folder, book, _ = graded
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "coursegen", "report", "--gradebook", str(book), "-o", str(out), "--root", str(REPO)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    english = (out / "index.html").read_text(encoding="utf-8")
    chinese = (out / "zh" / "index.html").read_text(encoding="utf-8")
    row = english.split('id="mistake-rope-clockwise"')[1].split("</tr>")[0]
    count, attempted = _rope_count("rope-clockwise"), _rope_attempted()
    assert f'<td data-value="{count}">{count}</td><td data-value="{attempted}">{attempted}</td>' in row
    assert f">{round(100 * count / attempted)}%<" in row
    assert "常见误解" in chinese and 'id="mistake-rope-clockwise"' in chinese
    data = json.loads((out / "students.js").read_text(encoding="utf-8").split("=", 1)[1].rstrip().rstrip(";"))
    assert sorted(s["name"] for s in data["students"].values()) == sorted({p[0] for p in PLAN})
    clockwise = next(s for s in data["students"].values() if s["name"] == "m-rope-clockwise")
    rows = [row for run in clockwise["latest"] for row in run[5]]
    assert any("rope-clockwise" in row[6] for row in rows)
    assert (out / "student.html").is_file() and (out / "zh" / "student.html").is_file()
