"""Grading against an assignment, class by class (grader/scaleout/batch.py with the course's real checks and
the in-process stand-in sandbox: every submission here is cut from the references, trusted code).
The maxima are the checks' declared points read apart (assignment_batches.declared_points)."""

import csv
import json
import sqlite3
from pathlib import Path

import pytest

from assignment_batches import (
    ROOT,
    alibi,
    apply_rope_only,
    cut_down,
    declared_points,
    rope_alibi_max,
    solution_notebook,
)
from grader.reporting.assignments import (
    Assignment,
    AssignmentError,
    check_points,
    per_student,
    pick_definition,
    resolve,
)
from grader.scaleout.batch import BatchError, run_batch
from grader.scaleout.executors import LocalPool
from grader.scaleout.run import GradingRun
from grader.reporting.gradebook import Gradebook
from grader.reporting.lms_export import export
from tests.first_course import COURSE


def table(text: str) -> list[list[str]]:
    """The cells of an exported CSV text, as a spreadsheet reads them (every cell is quoted)."""
    return list(csv.reader(text.splitlines()))


CHECKS = ROOT / "grader" / "checks"
FAKE = "grader_fakes:fake_sandbox_factory"
ROPE_ALIBI = Assignment("rope-alibi", "RoPE and ALiBi", ("apply_rope", "alibi_slopes", "alibi_bias"))


def definition(assignment=ROPE_ALIBI):
    return resolve(assignment, check_points(CHECKS))


def grade(folder: Path, book: Path | None = None, assignment=ROPE_ALIBI, **run):
    d = definition(assignment)
    results = run_batch(
        [folder],
        GradingRun(course=COURSE, checks_dir=CHECKS, sandbox_factory=FAKE, seed=7, definition=d, **run),
        LocalPool(1),
        gradebook=book,
        progress=False,
    )
    return {r.student: r for r in per_student(results, d)}


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    return solution_notebook(tmp_path_factory.mktemp("notebooks"), "rope-alibi")


def student(folder: Path, name: str, files: dict[str, str]) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    for file, text in files.items():
        (folder / name / file).write_text(text, encoding="utf-8")


def test_shrunk_metadata_does_not_narrow_what_is_graded(tmp_path, notebook):
    """The metadata lists alibi_slopes only; every exercise cell is still there: all are graded."""
    student(tmp_path, "mia", {"rope-alibi.ipynb": json.dumps(cut_down(notebook, "alibi_slopes", cells=False))})
    (result,) = grade(tmp_path).values()
    assert result.max_score == rope_alibi_max() and result.score == rope_alibi_max()


def test_deleted_cells_are_charged_their_points(tmp_path, notebook):
    """The metadata is intact but only alibi_slopes' cell is left: the others score 0 of their points."""
    student(tmp_path, "max", {"rope-alibi.ipynb": json.dumps(cut_down(notebook, "alibi_slopes", metadata=False))})
    (result,) = grade(tmp_path).values()
    assert result.max_score == rope_alibi_max() and result.score == declared_points("alibi_slopes")
    assert {t.exercise for t in result.tests if t.score == 0} == {"apply_rope", "alibi_bias"}


def test_a_function_of_another_assignment_is_neither_graded_nor_counted(tmp_path):
    """rope.py defines apply_rope and a broken ntk_base (lesson rope-practice): rope-alibi ignores it."""
    broken = apply_rope_only() + "\n\ndef ntk_base(base, scale, head_dim):\n    raise NotImplementedError\n"
    student(tmp_path, "ann", {"rope.py": broken, "alibi.py": alibi()})
    (result,) = grade(tmp_path).values()
    assert result.score == result.max_score == rope_alibi_max()
    assert "ntk_base" not in {t.exercise for t in result.tests}


def test_the_known_bug_a_perfect_apply_rope_only_rope_py_gets_all_its_points(tmp_path):
    """ntk_base lives in module rope but belongs to rope-practice: a rope.py without it loses nothing."""
    student(tmp_path, "ben", {"rope.py": apply_rope_only()})
    (result,) = grade(tmp_path).values()
    assert sum(t.score for t in result.tests if t.exercise == "apply_rope") == declared_points("apply_rope")
    assert result.max_score == rope_alibi_max()


def test_a_missing_module_is_charged_its_exercises(tmp_path):
    student(tmp_path, "cy", {"alibi.py": alibi()})
    (result,) = grade(tmp_path).values()
    assert result.score == declared_points("alibi_slopes") + declared_points("alibi_bias")
    assert result.max_score == rope_alibi_max()
    missing = [t for t in result.tests if t.exercise == "apply_rope"]
    assert missing and all(t.problem == "missing" and t.score == 0 for t in missing)


def test_a_notebook_of_another_lesson_is_charged_the_maximum_with_one_line(tmp_path):
    other = solution_notebook(tmp_path / "nb", "rope-practice")
    student(tmp_path / "batch", "dee", {"rope-practice.ipynb": json.dumps(other)})
    (result,) = grade(tmp_path / "batch").values()
    assert result.score == 0 and result.max_score == rope_alibi_max()
    assert len(result.problems) == 1 and "none of the exercises of assignment rope-alibi" in result.problems_in("en")[0]


def test_a_renamed_file_and_an_unreadable_one_are_graded_out_of_the_same_maximum(tmp_path):
    (tmp_path / "eve_123_rope-1.py").write_text(apply_rope_only())  # renamed by the LMS
    (tmp_path / "fay_alibi.py").write_bytes(b"def alibi_slopes(n):\n    return n \xff\n")  # not UTF-8
    results = grade(tmp_path)
    assert results["eve_123_rope-1"].score == declared_points("apply_rope")
    assert results["fay_alibi"].score == 0 and results["fay_alibi"].problems_in("en")[0].startswith(
        "the file is not UTF-8"
    )
    assert {r.max_score for r in results.values()} == {rope_alibi_max()}


def test_first_course_exercises_split_across_lessons_grade_per_assignment(tmp_path):
    """Module tokens holds encode, pad_batch (lesson tokens-embeddings) and merge_pair
    (subwords-objective): the same tokens.py is graded apart by each lesson's assignment."""
    student(tmp_path, "gus", {"tokens.py": (ROOT / "solutions" / "tokens.py").read_text()})
    first = Assignment(
        "tokens-embeddings",
        "t",
        ("encode", "pad_batch", "embedding_lookup", "one_hot_lookup", "embedding_backward"),
    )
    later = Assignment("subwords-objective", "s", ("merge_pair", "causal_mask", "next_token_loss"))
    (early,) = grade(tmp_path, assignment=first).values()
    (late,) = grade(tmp_path, assignment=later).values()
    assert early.score == declared_points("encode") + declared_points("pad_batch")
    assert early.max_score == sum(declared_points(n) for n in first.exercises)
    assert "merge_pair" not in {t.exercise for t in early.tests}
    assert late.score == declared_points("merge_pair")
    assert late.max_score == sum(declared_points(n) for n in later.exercises)


def test_points_overrides_scale_the_checks_and_the_maximum(tmp_path):
    student(tmp_path, "hal", {"rope.py": apply_rope_only()})
    weighted = Assignment("rope-alibi", "r", ROPE_ALIBI.exercises, points={"apply_rope": 30})
    (result,) = grade(tmp_path, assignment=weighted).values()
    assert result.score == 30 and result.max_score == 30 + declared_points("alibi_slopes") + declared_points(
        "alibi_bias"
    )


def test_the_gradebook_records_assignment_and_definition_and_refuses_a_silent_change(tmp_path):
    student(tmp_path / "batch", "ida", {"rope.py": apply_rope_only()})
    book = tmp_path / "g.sqlite"
    grade(tmp_path / "batch", book)
    with Gradebook(book) as opened:
        runs = opened.runs()
        assert [(r["assignment"], r["definition"]) for r in runs] == [("rope-alibi", definition().hash)]
        assert [d.hash for d in opened.definitions("rope-alibi")] == [definition().hash]
    changed = Assignment("rope-alibi", "r", ROPE_ALIBI.exercises, points={"alibi_bias": 1})
    with pytest.raises(BatchError, match="--new-definition"):
        grade(tmp_path / "batch", book, assignment=changed)
    grade(tmp_path / "batch", book, assignment=changed, new_definition=True)
    student(tmp_path / "batch", "ivy", {"alibi.py": alibi()})  # a late submission, after the explicit re-grade
    grade(tmp_path / "batch", book, assignment=changed)  # the new definition is the latest now: no flag needed
    with pytest.raises(BatchError, match="--new-definition"):
        grade(tmp_path / "batch", book)  # going back to the old one is a change again
    with Gradebook(book) as opened:
        runs, stored = opened.runs(), opened.definitions()
    assert [(r["student"], r["definition"]) for r in runs] == [
        ("ida", definition().hash),
        ("ida", definition(changed).hash),
        ("ivy", definition(changed).hash),
    ]
    assert pick_definition(runs, stored, "rope-alibi") == definition(changed)  # the latest runs all agree
    assert pick_definition(runs, stored, "rope-alibi", definition().hash[:8]) == definition()
    old = export(runs, "csv", exercises=[], definition=definition())
    assert table(old)[1][1:3] == ["10", f"{rope_alibi_max():g}"]


def test_latest_runs_of_two_definitions_are_refused_by_export_and_report(tmp_path):
    student(tmp_path / "one", "jo", {"rope.py": apply_rope_only()})
    student(tmp_path / "two", "kim", {"alibi.py": alibi()})
    book = tmp_path / "g.sqlite"
    grade(tmp_path / "one", book)
    changed = Assignment("rope-alibi", "r", ROPE_ALIBI.exercises, points={"alibi_bias": 1})
    grade(tmp_path / "two", book, assignment=changed, new_definition=True)
    with Gradebook(book) as opened:
        runs, stored = opened.runs(), opened.definitions()
    with pytest.raises(AssignmentError, match="different definitions"):
        pick_definition(runs, stored, "rope-alibi")


def test_a_roster_student_without_a_submission_is_0_of_the_maximum_in_csv_and_empty_in_canvas(tmp_path):
    from grader.reporting.lms_export import RosterEntry

    student(tmp_path / "batch", "lea", {"rope.py": apply_rope_only()})
    book = tmp_path / "g.sqlite"
    grade(tmp_path / "batch", book)
    with Gradebook(book) as opened:
        runs = opened.runs()
    roster = {"lea": RosterEntry("lea", "1"), "ned": RosterEntry("ned", "2")}
    rows = table(export(runs, "csv", exercises=[], roster=roster, definition=definition()))
    maximum = f"{rope_alibi_max():g}"
    assert rows[2][:5] == ["ned", "2", "0", maximum, "0"]
    canvas = export(runs, "canvas", exercises=[], roster=roster, assignment="RoPE", definition=definition(), out_of=100)
    assert table(canvas)[2][-1] == "" and table(canvas)[1][-1] == (
        f"{round(100 * declared_points('apply_rope') / rope_alibi_max(), 4):g}"
    )


def test_a_version_2_gradebook_migrates_to_3_with_no_assignment_on_old_runs(tmp_path):
    path = tmp_path / "v2.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '2');
        CREATE TABLE runs (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, student TEXT NOT NULL,
            submission TEXT NOT NULL, sha256 TEXT NOT NULL, checks_hash TEXT NOT NULL, seed TEXT NOT NULL,
            score REAL NOT NULL, max_score REAL NOT NULL, problems TEXT NOT NULL, lang TEXT NOT NULL,
            graded_at TEXT NOT NULL, problem_kinds TEXT NOT NULL DEFAULT '[]');
        CREATE TABLE checks (run_id INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
            exercise TEXT NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL, status TEXT NOT NULL,
            output TEXT NOT NULL, hidden INTEGER NOT NULL, mistakes TEXT NOT NULL DEFAULT '[]',
            problem TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, position));
        INSERT INTO runs VALUES (1, 'u1', 'ana', 'rope.py', 'aa', 'hh', '5', 15, 15, '[]', 'en', '2026-01-01', '[]');
        PRAGMA user_version = 2;
        """
    )
    db.close()
    with Gradebook(path) as book:
        (run,) = book.runs()
        assert (run["assignment"], run["definition"], run["score"]) == ("", "", 15)
    with pytest.raises(AssignmentError, match="no run in the gradebook was graded against assignment"):
        pick_definition([run], [], "rope-alibi")


def test_without_an_assignment_the_result_says_what_was_graded_and_that_none_was_named(tmp_path):
    (tmp_path / "rope.py").write_text(apply_rope_only())
    (result,) = run_batch(
        [tmp_path / "rope.py"],
        GradingRun(course=COURSE, checks_dir=CHECKS, sandbox_factory=FAKE, seed=7),
        LocalPool(1),
        progress=False,
    )
    assert result.assignment == "" and result.graded_against.startswith("module rope (apply_rope, ntk_base)")
    assert "no assignment named" in result.graded_against
    from grader.reporting.reports import text

    assert "graded against: module rope" in text(result)


def test_merged_shards_keep_their_assignment_definitions(tmp_path):
    from grader.reporting.gradebook import merge

    student(tmp_path / "a", "oli", {"rope.py": apply_rope_only()})
    student(tmp_path / "b", "pam", {"alibi.py": alibi()})
    grade(tmp_path / "a", tmp_path / "1.sqlite")
    grade(tmp_path / "b", tmp_path / "2.sqlite")
    merge(tmp_path / "1.sqlite", tmp_path / "2.sqlite", tmp_path / "all.sqlite")
    with Gradebook(tmp_path / "all.sqlite", create=False) as book:
        runs, stored = book.runs(), book.definitions()
    assert pick_definition(runs, stored, "rope-alibi") == definition()
    scores = table(export(runs, "csv", exercises=[], definition=definition()))[1:]
    assert [row[:3] for row in scores] == [
        ["oli", f"{declared_points('apply_rope'):g}", f"{rope_alibi_max():g}"],
        ["pam", f"{declared_points('alibi_slopes') + declared_points('alibi_bias'):g}", f"{rope_alibi_max():g}"],
    ]
