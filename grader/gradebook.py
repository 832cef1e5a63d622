"""The gradebook: every grading run, kept forever, in one SQLite file (WAL mode).

Tables (append-only: triggers refuse UPDATE and DELETE on runs and checks):
    meta(key, value)      schema version; the batch seed (so a resumed batch and every
                          shard draw the same inputs)
    runs(id, uid, student, submission, sha256, checks_hash, seed, score, max_score,
         problems, lang, graded_at, problem_kinds)
    checks(run_id, position, name, exercise, score, max_score, status, output, hidden,
           mistakes, problem)
    fingerprints(run_id, position, fingerprint)   the wrong output of a failing check, summarised
                          (grader/fingerprint.py: JSON, at most 1200 characters, longer text never
                          read); a table of its own, so files without it open as before

`mistakes` (JSON list of catalogued mistake ids the check's output matched), `problem` (why
no answer came, see grader/problems.py) and `problem_kinds` (JSON list of the run's kinds)
arrived with schema version 2, which `PRAGMA user_version` records. Opening a version-1 file
adds the three columns in one transaction (runs graded before keep `[]` / `""`: unknown).

A submission is re-graded only when its sha256, the hash of the checks and references, or
the seed changed (`has_run`). Each run is written in one transaction, so a batch killed at
any point leaves only complete runs. A corrupt or locked file raises GradebookError with a
one-line message (the CLI exits 2).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import uuid
from datetime import datetime, timezone
from pathlib import Path

from grader.atomic import staged_file
from grader.results import CheckResult, SubmissionResult
from grader.textsafe import csv_cell, csv_number

SCHEMA_VERSION = "2"
_FINGERPRINT_CHARS = 1200  # grader/fingerprint.py MAX_CHARS: longer text is never read
USER_VERSION = 2  # PRAGMA user_version of a current gradebook (0 in a version-1 file)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    student TEXT NOT NULL,
    submission TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    checks_hash TEXT NOT NULL,
    seed TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    problems TEXT NOT NULL,
    lang TEXT NOT NULL,
    graded_at TEXT NOT NULL,
    problem_kinds TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS runs_key ON runs (student, submission, sha256, checks_hash, seed);
CREATE TABLE IF NOT EXISTS checks (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    exercise TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    status TEXT NOT NULL,
    output TEXT NOT NULL,
    hidden INTEGER NOT NULL,
    mistakes TEXT NOT NULL DEFAULT '[]',
    problem TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS fingerprints (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    position INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE TRIGGER IF NOT EXISTS fingerprints_append_only_update BEFORE UPDATE ON fingerprints
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS fingerprints_append_only_delete BEFORE DELETE ON fingerprints
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS runs_append_only_update BEFORE UPDATE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS runs_append_only_delete BEFORE DELETE ON runs
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS checks_append_only_update BEFORE UPDATE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS checks_append_only_delete BEFORE DELETE ON checks
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
"""

# version 1 -> 2: what the class report needs (grader/problems.py, solutions/mistakes)
_MIGRATE_1_TO_2 = (
    "ALTER TABLE runs ADD COLUMN problem_kinds TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE checks ADD COLUMN mistakes TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE checks ADD COLUMN problem TEXT NOT NULL DEFAULT ''",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)


class GradebookError(Exception):
    """The gradebook file cannot be used (corrupt, locked, not a gradebook)."""


class Gradebook:
    """One gradebook file. Safe to open from several processes at once (WAL, busy timeout)."""

    def __init__(self, path: Path | str, *, busy_timeout: float = 30.0, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise GradebookError(f"{self.path}: no such gradebook")
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise GradebookError(f"{self.path}: could not switch the gradebook to WAL mode ({mode})")
            self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                self._migrate()
            except GradebookError:
                self._db.close()
                raise
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            self._db.execute(f"PRAGMA user_version = {USER_VERSION}")
            version = self._meta("schema_version")
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        if version != SCHEMA_VERSION:
            raise GradebookError(f"{self.path}: gradebook schema version {version}, this grader reads {SCHEMA_VERSION}")

    def _migrate(self) -> None:
        """Bring an older gradebook up to this schema, in one transaction (all or nothing)."""
        user_version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if user_version > USER_VERSION:
            raise GradebookError(
                f"{self.path}: gradebook schema version {user_version} was written by a newer "
                f"grader; this one reads up to {USER_VERSION}"
            )
        has_meta = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
        if user_version == USER_VERSION or not has_meta:
            return  # current, or a new file
        version = self._meta("schema_version")
        if version != "1":
            raise GradebookError(
                f"{self.path}: gradebook schema version {version}, this grader reads {SCHEMA_VERSION} (and migrates 1)"
            )
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _MIGRATE_1_TO_2:
                self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {USER_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "Gradebook":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- meta ------------------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def seed(self) -> int | None:
        """The batch seed stored in this gradebook, if any."""
        try:
            value = self._meta("batch_seed")
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return int(value) if value is not None else None

    def ensure_seed(self, seed: int) -> int:
        """Store `seed` as the batch seed unless one is stored already; return the stored one."""
        try:
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('batch_seed', ?)", (str(seed),))
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        stored = self.seed()
        assert stored is not None, "INSERT OR IGNORE leaves a batch seed stored"
        return stored

    # ---- runs ------------------------------------------------------------------------------

    def has_run(self, student: str, submission: str, sha256: str, checks_hash: str, seed: int) -> bool:
        try:
            row = self._db.execute(
                "SELECT 1 FROM runs WHERE student = ? AND submission = ? AND sha256 = ? AND checks_hash = ? "
                "AND seed = ? LIMIT 1",
                (student, submission, sha256, checks_hash, str(seed)),
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return row is not None

    def record(
        self,
        result: SubmissionResult,
        *,
        checks_hash: str,
        seed: int,
        uid: str | None = None,
        graded_at: str | None = None,
    ) -> int:
        """Append one run and its checks in a single transaction; returns the run id."""
        graded_at = graded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT INTO runs (uid, student, submission, sha256, checks_hash, seed, score, max_score, "
                    "problems, lang, graded_at, problem_kinds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        uid or uuid.uuid4().hex,
                        result.student,
                        result.submission,
                        result.sha256,
                        checks_hash,
                        str(seed),
                        result.score,
                        result.max_score,
                        json.dumps(result.problems, ensure_ascii=False),
                        result.lang,
                        graded_at,
                        json.dumps(result.problem_kinds),
                    ),
                )
                run_id = cursor.lastrowid
                assert run_id is not None  # an INSERT sets it
                self._db.executemany(
                    "INSERT INTO checks (run_id, position, name, exercise, score, max_score, status, output, hidden, "
                    "mistakes, problem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            run_id,
                            i,
                            t.name,
                            t.exercise,
                            t.score,
                            t.max_score,
                            t.status,
                            t.output,
                            int(t.hidden),
                            json.dumps(t.mistakes),
                            t.problem,
                        )
                        for i, t in enumerate(result.tests)
                    ],
                )
                self._db.executemany(  # the wrong outputs, summarised (grader/fingerprint.py)
                    "INSERT INTO fingerprints (run_id, position, fingerprint) VALUES (?, ?, ?)",
                    [
                        (run_id, i, t.fingerprint[:_FINGERPRINT_CHARS])
                        for i, t in enumerate(result.tests)
                        if t.fingerprint
                    ],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return run_id

    def runs(self, where: str = "", parameters: tuple = ()) -> list[dict]:
        """Every run (matching the SQL condition `where`), oldest first, as dicts with their
        checks under "tests"."""
        condition = f"WHERE {where}" if where else ""
        try:
            rows = self._db.execute(
                "SELECT id, uid, student, submission, sha256, checks_hash, seed, score, "
                f"max_score, problems, lang, graded_at, problem_kinds FROM runs {condition} "
                "ORDER BY id",
                parameters,
            ).fetchall()
            checks = self._db.execute(
                "SELECT run_id, name, exercise, score, max_score, status, output, hidden, mistakes, problem "
                f"FROM checks WHERE run_id IN (SELECT id FROM runs {condition}) ORDER BY run_id, position",
                parameters,
            ).fetchall()
            prints = self._db.execute(
                "SELECT run_id, position, fingerprint FROM fingerprints "
                f"WHERE run_id IN (SELECT id FROM runs {condition}) AND length(fingerprint) <= ?",
                (*parameters, _FINGERPRINT_CHARS),
            ).fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        fingerprints = {(run_id, position): text for run_id, position, text in prints}
        by_run: dict[int, list[dict]] = {}
        for run_id, name, exercise, score, max_score, status, output, hidden, mistakes, problem in checks:
            by_run.setdefault(run_id, []).append(
                dict(
                    name=name,
                    exercise=exercise,
                    score=score,
                    max_score=max_score,
                    status=status,
                    output=output,
                    hidden=bool(hidden),
                    mistakes=json.loads(mistakes),
                    problem=problem,
                    fingerprint=fingerprints.get((run_id, len(by_run.get(run_id, []))), ""),
                )
            )
        keys = (
            "id",
            "uid",
            "student",
            "submission",
            "sha256",
            "checks_hash",
            "seed",
            "score",
            "max_score",
            "problems",
            "lang",
            "graded_at",
            "problem_kinds",
        )
        runs = []
        for row in rows:
            run = dict(zip(keys, row))
            run["problems"] = json.loads(run["problems"])
            run["problem_kinds"] = json.loads(run["problem_kinds"])
            run["tests"] = by_run.get(run["id"], [])
            runs.append(run)
        return runs

    def latest_results(self) -> list[SubmissionResult]:
        """The latest run of every (student, submission), sorted by student then submission."""
        latest: dict[tuple[str, str], dict] = {}
        for run in self.runs():
            latest[(run["student"], run["submission"])] = run
        return [_result(latest[key]) for key in sorted(latest)]

    def latest_result(
        self, student: str, submission: str, sha256: str, checks_hash: str, seed: int
    ) -> SubmissionResult | None:
        matching = self.runs(
            "student = ? AND submission = ? AND sha256 = ? AND checks_hash = ? AND seed = ?",
            (student, submission, sha256, checks_hash, str(seed)),
        )
        return _result(matching[-1]) if matching else None

    def export_csv(self) -> str:
        """One row per (student, submission), its latest run."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["student", "submission", "score", "max_score", "problems", "sha256", "graded_at"])
        latest: dict[tuple[str, str], dict] = {}
        for run in self.runs():
            latest[(run["student"], run["submission"])] = run
        for key in sorted(latest):
            run = latest[key]
            writer.writerow(
                [
                    csv_cell(run["student"]),
                    csv_cell(run["submission"]),
                    csv_number(run["score"]),
                    csv_number(run["max_score"]),
                    csv_cell(" | ".join(run["problems"])),
                    csv_cell(run["sha256"]),
                    csv_cell(run["graded_at"]),
                ]
            )
        return out.getvalue()


def _result(run: dict) -> SubmissionResult:
    return SubmissionResult(
        student=run["student"],
        submission=run["submission"],
        sha256=run["sha256"],
        score=run["score"],
        max_score=run["max_score"],
        tests=[CheckResult(**t) for t in run["tests"]],
        problems=run["problems"],
        lang=run["lang"],
        problem_kinds=run["problem_kinds"],
    )


def _explain(path: Path, exc: sqlite3.Error) -> GradebookError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return GradebookError(f"{path}: the gradebook is locked by another process (try again when it has finished)")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return GradebookError(
            f"{path}: the file is not a readable gradebook ({text}); restore it from a copy or grade into a new file"
        )
    if "unable to open" in text:
        return GradebookError(f"{path}: cannot open the gradebook ({text})")
    return GradebookError(f"{path}: gradebook error: {text}")


def merge(first: Path | str, second: Path | str, out: Path | str) -> int:
    """Write a new gradebook `out` holding every run of `first` and `second` (runs already
    present, by uid, are not duplicated). Returns the number of runs in `out`.

    The batch seeds must agree (shards of one batch share the seed)."""
    out = Path(out)
    if out.exists():
        raise GradebookError(f"{out}: already exists; merge writes a new gradebook")
    sources = [Gradebook(first, create=False), Gradebook(second, create=False)]
    try:
        seeds = {seed for s in sources if (seed := s.seed()) is not None}
        if len(seeds) > 1:
            raise GradebookError(
                f"{first} and {second} were graded with different batch seeds; they are not shards of one batch"
            )
        runs = sorted(
            (run for source in sources for run in source.runs()),
            key=lambda r: (r["graded_at"], r["student"], r["submission"], r["uid"]),
        )
    finally:
        for source in sources:
            source.close()
    with staged_file(out, companions=("-wal", "-shm")) as partial:
        target = Gradebook(partial)
        try:
            if seeds:
                target.ensure_seed(seeds.pop())
            seen: set[str] = set()
            for run in runs:
                if run["uid"] in seen:
                    continue
                seen.add(run["uid"])
                target.record(
                    _result(run),
                    checks_hash=run["checks_hash"],
                    seed=int(run["seed"]),
                    uid=run["uid"],
                    graded_at=run["graded_at"],
                )
            target._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            target.close()
    return len(seen)
