"""Gradebook schema 2: matched mistake ids and problem kinds are stored, and a version-1 file
(as the grader wrote it before this schema) opens, is migrated once, and keeps its runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from grader.reporting.gradebook import Gradebook, GradebookError, merge
from grader.reporting.results import CheckResult, SubmissionResult

FIXTURES = Path(__file__).parent / "fixtures"

# The version-1 schema, as grader/reporting/gradebook.py created it before schema 2 (written out here,
# not produced by the code under test).
V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, student TEXT NOT NULL, submission TEXT NOT NULL,
    sha256 TEXT NOT NULL, checks_hash TEXT NOT NULL, seed TEXT NOT NULL, score REAL NOT NULL,
    max_score REAL NOT NULL, problems TEXT NOT NULL, lang TEXT NOT NULL, graded_at TEXT NOT NULL);
CREATE INDEX runs_key ON runs (student, submission, sha256, checks_hash, seed);
CREATE TABLE checks (
    run_id INTEGER NOT NULL REFERENCES runs(id), position INTEGER NOT NULL, name TEXT NOT NULL,
    exercise TEXT NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL, status TEXT NOT NULL,
    output TEXT NOT NULL, hidden INTEGER NOT NULL, PRIMARY KEY (run_id, position));
CREATE TRIGGER runs_append_only_update BEFORE UPDATE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER runs_append_only_delete BEFORE DELETE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER checks_append_only_update BEFORE UPDATE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER checks_append_only_delete BEFORE DELETE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO meta VALUES ('batch_seed', '99');
INSERT INTO runs VALUES (1, 'u1', 'cleo', 'alibi.py', 'f00d', 'c0de', '99', 1.0, 4.0, '[]', 'zh', '2026-11-01T09:00:00+00:00');
INSERT INTO checks VALUES (1, 0, 'test_alibi_slopes', 'alibi_slopes', 1.0, 1.0, 'passed', '', 0);
INSERT INTO checks VALUES (1, 1, 'test_alibi_bias', 'alibi_bias', 0.0, 3.0, 'failed', 'wrong sign', 0);
"""


def _v1_file(tmp_path: Path, script: str) -> Path:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(script)
    db.commit()
    db.close()
    return path


def _columns(path: Path, table: str) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    finally:
        db.close()


def _user_version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


def _result(mistakes: list[str], problem: str = "", kinds: list[str] | None = None) -> SubmissionResult:
    return SubmissionResult(
        student="dana",
        submission="rope.py",
        sha256="d" * 64,
        score=3,
        max_score=5,
        lang="en",
        problem_kinds=kinds or [],
        tests=[
            CheckResult("test_values", "apply_rope", 3, 3, "passed"),
            CheckResult("test_positions", "apply_rope", 0, 2, "failed", "wrong", True, mistakes, problem),
        ],
    )


def test_a_version_1_gradebook_written_by_the_old_grader_opens_and_keeps_its_runs(tmp_path):
    path = _v1_file(tmp_path, (FIXTURES / "gradebook_v1.sql").read_text(encoding="utf-8"))
    assert _user_version(path) == 0 and "mistakes" not in _columns(path, "checks")
    with Gradebook(path, create=False) as book:
        runs = book.runs()
        assert book.seed() == 12345
    assert [(r["student"], r["score"], r["problem_kinds"]) for r in runs] == [("ana", 3.0, []), ("ben", 0.0, [])]
    assert [(t["name"], t["status"], t["mistakes"], t["problem"]) for t in runs[0]["tests"]] == [
        ("test_rope_values", "passed", [], ""),
        ("test_rope_positions", "failed", [], ""),
    ]
    assert runs[1]["problems"] == ["syntax error at line 1, column 15: '(' was never closed"]
    assert _user_version(path) == 4
    assert {"mistakes", "problem"} <= set(_columns(path, "checks"))
    assert "problem_kinds" in _columns(path, "runs")


def test_the_migration_keeps_the_gradebook_append_only_and_records_new_runs(tmp_path):
    path = _v1_file(tmp_path, V1_SCHEMA)
    with Gradebook(path) as book:
        book.record(_result(["rope-clockwise"], "", []), checks_hash="c0de", seed=99)
        runs = book.runs()
    assert [r["student"] for r in runs] == ["cleo", "dana"]
    assert runs[0]["tests"][1]["output"] == "wrong sign" and runs[0]["tests"][1]["mistakes"] == []
    assert runs[1]["tests"][1]["mistakes"] == ["rope-clockwise"]
    db = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE checks SET mistakes = '[]'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("DELETE FROM runs")
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
    db.close()


def test_opening_a_migrated_gradebook_again_changes_nothing(tmp_path):
    path = _v1_file(tmp_path, V1_SCHEMA)
    Gradebook(path).close()
    columns = _columns(path, "checks")
    Gradebook(path).close()
    assert _columns(path, "checks") == columns and _user_version(path) == 4


def test_mistake_ids_problem_and_kinds_round_trip_and_survive_a_merge(tmp_path):
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    with Gradebook(first) as book:
        book.record(_result(["rope-clockwise", "rope-half-split"], "timeout", ["timeout"]), checks_hash="h", seed=1)
    Gradebook(second).close()
    merge(first, second, tmp_path / "merged.sqlite")
    with Gradebook(tmp_path / "merged.sqlite", create=False) as book:
        (result,) = book.latest_results()
    assert result.tests[1].mistakes == ["rope-clockwise", "rope-half-split"]
    assert result.tests[1].problem == "timeout" and result.problem_kinds == ["timeout"]


def test_a_gradebook_from_a_newer_grader_is_refused_by_name(tmp_path):
    path = tmp_path / "new.sqlite"
    Gradebook(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 9")
    db.commit()
    db.close()
    with pytest.raises(GradebookError, match=r"new\.sqlite: gradebook schema version 9 was written by a newer grader"):
        Gradebook(path)


def test_an_unknown_old_version_is_refused_and_left_untouched(tmp_path):
    path = _v1_file(tmp_path, V1_SCHEMA.replace("('schema_version', '1')", "('schema_version', '0.5')"))
    with pytest.raises(GradebookError, match="schema version 0.5"):
        Gradebook(path)
    assert "mistakes" not in _columns(path, "checks") and _user_version(path) == 0
