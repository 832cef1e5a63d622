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
no answer came, see grader/reporting/problems.py) and `problem_kinds` (JSON list of the run's kinds)
arrived with schema version 2, which `PRAGMA user_version` records. Opening a version-1 file
adds the three columns in one transaction (runs graded before keep `[]` / `""`: unknown).

Schema version 3 adds what a run was graded against: `runs.assignment` (the course assignment's
id, "" for a run graded without one, as every run before version 3) and `runs.definition` (the
hash of that assignment's exercises and points, grader/reporting/assignments.py), and the table
    definitions(hash, assignment, definition)   the definition itself (JSON), once per hash
Opening a version-1 or -2 file migrates it in one transaction (old runs: no assignment).

Schema version 4 keeps what lateness cost, apart from the raw score the checks gave (issue 34.3):
    lateness(student, assignment, definition, submitted_at, late_marked, late_by, raw, penalty,
             final, source, recorded_at)
one row each time a student's work on an assignment is graded against its due date (`coursegen
grade --assignment`, the grading service at receipt time); the latest row of a (student,
assignment, definition) is the one shown. `submitted_at` is ISO 8601 with offset ("" unknown),
`late_by` seconds after the student's due time (NULL: on time or unknown), `source` where the
time came from (gradescope, classroom, canvas-late-mark, roster, service). Runs keep the raw
score. A file without the table (versions 1 to 3) reads as "no lateness recorded"; opening it
for writing adds the table.

A submission is re-graded only when its sha256, the hash of the checks and references, the
seed, or the assignment definition changed (`has_run`). Each run is written in one transaction, so a batch killed at
any point leaves only complete runs. A corrupt or locked file raises GradebookError with a
one-line message (the CLI exits 2).
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from grader.feedback import Problem, restored, shown, stored
from grader.reporting.assignments import Definition
from grader.atomic import staged_file
from grader.reporting.results import CheckResult, SubmissionResult
from grader.textsafe import csv_number, csv_text
from grader.errors import CoursegenError

SCHEMA_VERSION = "4"
USER_VERSION = 4  # PRAGMA user_version of a current gradebook (0 in a version-1 file, 2 in a version-2 one)
_FINGERPRINT_CHARS = 1200  # grader/fingerprint.py MAX_CHARS: longer text is never read

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
    problem_kinds TEXT NOT NULL DEFAULT '[]',
    assignment TEXT NOT NULL DEFAULT '',
    definition TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_key ON runs (student, submission, sha256, checks_hash, seed);
CREATE TABLE IF NOT EXISTS definitions (
    hash TEXT PRIMARY KEY,
    assignment TEXT NOT NULL,
    definition TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS definitions_append_only_update BEFORE UPDATE ON definitions
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS definitions_append_only_delete BEFORE DELETE ON definitions
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
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
CREATE TABLE IF NOT EXISTS lateness (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    assignment TEXT NOT NULL,
    definition TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    late_marked INTEGER NOT NULL,
    late_by REAL,
    raw REAL NOT NULL,
    penalty REAL NOT NULL,
    final REAL NOT NULL,
    source TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lateness_key ON lateness (student, assignment, definition);
CREATE TRIGGER IF NOT EXISTS lateness_append_only_update BEFORE UPDATE ON lateness
    BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END;
CREATE TRIGGER IF NOT EXISTS lateness_append_only_delete BEFORE DELETE ON lateness
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

# version 1 -> 2: what the class report needs (grader/reporting/problems.py, solutions/mistakes)
_MIGRATE_1_TO_2 = (
    "ALTER TABLE runs ADD COLUMN problem_kinds TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE checks ADD COLUMN mistakes TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE checks ADD COLUMN problem TEXT NOT NULL DEFAULT ''",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)
# version 2 -> 3: what each run was graded against (grader/reporting/assignments.py); old runs: none
_MIGRATE_2_TO_3 = (
    "ALTER TABLE runs ADD COLUMN assignment TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE runs ADD COLUMN definition TEXT NOT NULL DEFAULT ''",
    "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
)
# version 3 -> 4: the lateness table (created by _SCHEMA right after); old runs: no lateness recorded
_MIGRATE_3_TO_4 = ("UPDATE meta SET value = '4' WHERE key = 'schema_version'",)


def _statements(script: str) -> list[str]:
    """The SQL statements of a script, one by one (a trigger's body keeps its own `;`), so that
    they run inside one transaction (sqlite3's executescript commits first)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    assert not current.strip(), f"an unfinished SQL statement: {current!r}"
    return statements


class GradebookError(CoursegenError):
    """The gradebook file cannot be used (corrupt, locked, not a gradebook)."""


class Gradebook:
    """One gradebook file. Safe to open from several processes at once (WAL, busy timeout)."""

    def __init__(self, path: Path | str, *, busy_timeout: float = 30.0, create: bool = True, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._columns = {"runs": list(_RUN_COLUMNS), "checks": list(_CHECK_COLUMNS)}
        if not create and not self.path.exists():
            raise GradebookError(f"{self.path}: no such gradebook")
        if read_only:
            self._open_read_only(busy_timeout)
            return
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            mode = self._switch_to_wal(busy_timeout)
            if mode.lower() != "wal":
                raise GradebookError(f"{self.path}: could not switch the gradebook to WAL mode ({mode})")
            self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                self._create_or_migrate()
            except GradebookError:
                self._db.close()
                raise
            version = self._meta("schema_version")
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        if version != SCHEMA_VERSION:
            raise GradebookError(f"{self.path}: gradebook schema version {version}, this grader reads {SCHEMA_VERSION}")

    def _switch_to_wal(self, busy_timeout: float) -> str:
        """Set WAL mode. SQLite answers "locked" at once, without its busy handler, to a connection
        that asks while another is switching the same new file: ask again until the busy timeout."""
        deadline = time.monotonic() + busy_timeout
        while True:
            try:
                return str(self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _create_or_migrate(self) -> None:
        """Create a new gradebook or bring an older one up to this schema, in one write transaction:
        another process opening the same file at the same moment (a shard, a reader of a batch in
        progress) waits for it and then sees the whole schema, never a file half made."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._migrate()
            for statement in _statements(_SCHEMA):
                self._db.execute(statement)
            self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            self._db.execute(f"PRAGMA user_version = {USER_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _migrate(self) -> None:
        """Bring an older gradebook up to this schema (inside the caller's transaction)."""
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
        steps = {
            "1": _MIGRATE_1_TO_2 + _MIGRATE_2_TO_3 + _MIGRATE_3_TO_4,
            "2": _MIGRATE_2_TO_3 + _MIGRATE_3_TO_4,
            "3": _MIGRATE_3_TO_4,
        }
        if version not in steps:
            raise GradebookError(
                f"{self.path}: gradebook schema version {version}, this grader reads {SCHEMA_VERSION} (and migrates 1-3)"
            )
        for statement in steps[version]:
            self._db.execute(statement)

    def _open_read_only(self, busy_timeout: float) -> None:
        """For the readers (merge, report, export) of files that may come from elsewhere (a shard
        of another machine): opened read-only (URI mode=ro, query_only, no trusted schema), its
        schema checked to be exactly a gradebook's (tables, not views; exact columns; no trigger
        but the append-only ones) before any query, every query bounded in time."""
        from urllib.parse import quote

        if not self.path.is_file():
            raise GradebookError(f"{self.path}: not a regular file")
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            self._db = sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        try:
            self._db.execute("PRAGMA query_only = 1")
            self._db.execute("PRAGMA trusted_schema = 0")
            deadline = time.monotonic() + READ_SECONDS
            self._db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            self._check_schema()
            version = self._meta("schema_version")
            user_version = self._db.execute("PRAGMA user_version").fetchone()[0]
        except GradebookError:
            self._db.close()
            raise
        except sqlite3.Error as exc:
            self._db.close()
            if "interrupted" in str(exc):
                raise GradebookError(f"{self.path}: reading the gradebook took longer than {READ_SECONDS} s") from None
            raise _explain(self.path, exc) from None
        if version not in ("1", "2", "3", SCHEMA_VERSION) or user_version > USER_VERSION:
            self._db.close()
            raise GradebookError(f"{self.path}: gradebook schema version {version}, this grader reads {SCHEMA_VERSION}")

    def _check_schema(self) -> None:
        """Refuse anything but the gradebook's own tables, index and triggers."""
        objects = self._db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
        tables = {}
        for kind, name, table, sql in objects:
            if kind == "table" and name in ("meta", "runs", "checks", "definitions", "fingerprints", "lateness"):
                tables[name] = True
            elif kind == "table" and name.startswith("sqlite_stat"):
                continue
            elif kind == "table" and name in _QUIZ_TABLES:
                continue  # `coursegen quiz grade` appends to the same file; its own bounded reader reads them
            elif kind == "table" and name in _SERVICE_TABLES:
                continue  # the grading service's tokens and queue (coursegen/service/store.py); never read here
            elif kind == "index" and (name in ("runs_key", "lateness_key") or name.startswith("sqlite_autoindex_")):
                continue
            elif kind == "trigger" and _TRIGGERS.get(name) == (table, " ".join(str(sql).split())):
                continue
            else:
                raise GradebookError(
                    f"{self.path}: not a gradebook: it holds {kind} {name!r}, which no gradebook has (a tampered file?)"
                )
        missing = [t for t in ("meta", "runs", "checks") if t not in tables]
        if missing:
            raise GradebookError(f"{self.path}: not a gradebook: no table {missing[0]!r}")
        for table, versions in _COLUMNS_BY_VERSION.items():
            if table in _OPTIONAL_TABLES and table not in tables:
                self._columns[table] = []
                continue
            columns = [row[1] for row in self._db.execute(f"PRAGMA table_info({table})").fetchall()]
            if columns not in versions:
                raise GradebookError(
                    f"{self.path}: not a gradebook: table {table} has columns {', '.join(columns)}; "
                    f"expected {', '.join(versions[-1])}"
                )
            if table != "meta":
                self._columns[table] = columns

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

    def has_run(
        self, student: str, submission: str, sha256: str, checks_hash: str, seed: int, definition: str = ""
    ) -> bool:
        """Whether this exact grading is stored (`definition`: the assignment's hash, "" for none)."""
        try:
            row = self._db.execute(
                "SELECT 1 FROM runs WHERE student = ? AND submission = ? AND sha256 = ? AND checks_hash = ? "
                "AND seed = ? AND definition = ? LIMIT 1",
                (student, submission, sha256, checks_hash, str(seed), definition),
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
                    "problems, lang, graded_at, problem_kinds, assignment, definition) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        uid or uuid.uuid4().hex,
                        result.student,
                        result.submission,
                        result.sha256,
                        checks_hash,
                        str(seed),
                        result.score,
                        result.max_score,
                        json.dumps([stored(p) for p in result.problems], ensure_ascii=False),
                        result.lang,
                        graded_at,
                        json.dumps(result.problem_kinds),
                        result.assignment,
                        result.definition,
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

        def select(table: str, names: tuple[str, ...]) -> str:  # a version-1 file lacks the new columns
            have = self._columns[table]
            return ", ".join(n if n in have else f"{_DEFAULTS[n]} AS {n}" for n in names)

        try:
            rows = self._db.execute(
                f"SELECT {select('runs', _RUN_READ)} FROM runs {condition} ORDER BY id",
                parameters,
            ).fetchall()
            checks = self._db.execute(
                f"SELECT {select('checks', _CHECK_READ)} "
                f"FROM checks WHERE run_id IN (SELECT id FROM runs {condition}) ORDER BY run_id, position",
                parameters,
            ).fetchall()
            prints = (
                self._db.execute(
                    "SELECT run_id, position, fingerprint FROM fingerprints "
                    f"WHERE run_id IN (SELECT id FROM runs {condition}) AND length(fingerprint) <= ?",
                    (*parameters, _FINGERPRINT_CHARS),
                ).fetchall()
                if self._columns.get("fingerprints", True)  # a read-only file older than the table: none
                else []
            )
        except sqlite3.Error as exc:
            if "interrupted" in str(exc):
                raise GradebookError(f"{self.path}: reading the gradebook took longer than {READ_SECONDS} s") from None
            raise _explain(self.path, exc) from None
        if self.read_only:
            _check_values(self.path, rows, checks)
        fingerprints = {(run_id, position): text for run_id, position, text in prints if isinstance(text, str)}
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
                    mistakes=_names(self.path, mistakes, "mistakes"),
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
            "assignment",
            "definition",
        )
        runs = []
        for row in rows:
            run = dict(zip(keys, row))
            run["problems"] = _problems(self.path, run["problems"])
            run["problem_kinds"] = _names(self.path, run["problem_kinds"], "problem_kinds")
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
        self, student: str, submission: str, sha256: str, checks_hash: str, seed: int, definition: str = ""
    ) -> SubmissionResult | None:
        matching = self.runs(
            "student = ? AND submission = ? AND sha256 = ? AND checks_hash = ? AND seed = ? AND definition = ?",
            (student, submission, sha256, checks_hash, str(seed), definition),
        )
        return _result(matching[-1]) if matching else None

    # ---- assignment definitions --------------------------------------------------------------

    def record_definition(self, definition: Definition) -> None:
        """Store an assignment definition (once per hash; a stored one is never changed)."""
        graded_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        text = json.dumps(definition.to_json(), sort_keys=True)
        try:
            self._db.execute(
                "INSERT OR IGNORE INTO definitions (hash, assignment, definition, recorded_at) VALUES (?, ?, ?, ?)",
                (definition.hash, definition.assignment, text, graded_at),
            )
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None

    def definitions(self, assignment: str | None = None) -> list[Definition]:
        """The stored definitions (of one assignment), oldest first (none in a file older than
        version 3). Each is bounded before it is decoded, as every JSON value of a gradebook."""
        if self.read_only and not self._columns.get("definitions", True):
            return []
        try:
            rows = self._db.execute(
                "SELECT definition FROM definitions"
                + (" WHERE assignment = ?" if assignment is not None else "")
                + " ORDER BY recorded_at, rowid",
                (assignment,) if assignment is not None else (),
            ).fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return [_definition(self.path, text) for (text,) in rows]

    def graded_definitions(self, assignment: str) -> list[str]:
        """The definition hashes the runs of `assignment` were graded against, last used last."""
        if "assignment" not in self._columns["runs"]:
            return []  # a read-only file older than version 3: no run has an assignment
        try:
            rows = self._db.execute(
                "SELECT definition FROM runs WHERE assignment = ? GROUP BY definition ORDER BY MAX(id)", (assignment,)
            ).fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        return [row[0] for row in rows]

    # ---- lateness (schema version 4) ----------------------------------------------------------

    def record_lateness(
        self,
        student: str,
        assignment: str,
        definition: str,
        *,
        submitted_at: str,
        late_marked: bool,
        late_by: float | None,
        raw: float,
        penalty: float,
        final: float,
        source: str,
        recorded_at: str | None = None,
    ) -> None:
        """Append what lateness cost `student` on `assignment` (graded against `definition`);
        nothing is written when it repeats the latest row of that student (a resumed batch)."""
        row = (submitted_at, int(late_marked), late_by, float(raw), float(penalty), float(final), source)
        try:
            latest = self._db.execute(
                f"SELECT {', '.join(_LATENESS_COLUMNS[4:11])} FROM lateness "
                "WHERE student = ? AND assignment = ? AND definition = ? ORDER BY id DESC LIMIT 1",
                (student, assignment, definition),
            ).fetchone()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        if latest is not None and tuple(latest) == row:
            return
        recorded_at = recorded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            self._db.execute(
                "INSERT INTO lateness (student, assignment, definition, submitted_at, late_marked, late_by, raw, "
                "penalty, final, source, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (student, assignment, definition, *row, recorded_at),
            )
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None

    def lateness(self, assignment: str | None = None, definition: str | None = None) -> dict[str, dict]:
        """student -> the latest lateness row (a dict of its columns) of `assignment` graded against
        `definition` (all when None); {} for a file older than schema version 4."""
        if self.read_only and not self._columns.get("lateness", True):
            return {}
        where, parameters = [], []
        for name, value in (("assignment", assignment), ("definition", definition)):
            if value is not None:
                where.append(f"{name} = ?")
                parameters.append(value)
        try:
            rows = self._db.execute(
                f"SELECT {', '.join(_LATENESS_COLUMNS)} FROM lateness"
                + (f" WHERE {' AND '.join(where)}" if where else "")
                + " ORDER BY id",
                parameters,
            ).fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        latest: dict[str, dict] = {}
        for row in rows:
            record = dict(zip(_LATENESS_COLUMNS, row))
            if self.read_only:
                _check_lateness(self.path, record)
            latest[str(record["student"])] = record
        return latest

    def lateness_rows(self) -> list[dict]:
        """Every lateness row, oldest first (for merge)."""
        if self.read_only and not self._columns.get("lateness", True):
            return []
        try:
            rows = self._db.execute(f"SELECT {', '.join(_LATENESS_COLUMNS)} FROM lateness ORDER BY id").fetchall()
        except sqlite3.Error as exc:
            raise _explain(self.path, exc) from None
        found = [dict(zip(_LATENESS_COLUMNS, row)) for row in rows]
        if self.read_only:
            for record in found:
                _check_lateness(self.path, record)
        return found

    def export_csv(self) -> str:
        """One row per (student, submission), its latest run."""
        rows: list[list] = [["student", "submission", "score", "max_score", "problems", "sha256", "graded_at"]]
        latest: dict[tuple[str, str], dict] = {}
        for run in self.runs():
            latest[(run["student"], run["submission"])] = run
        for key in sorted(latest):
            run = latest[key]
            rows.append(
                [
                    str(run["student"]),
                    str(run["submission"]),
                    csv_number(run["score"]),
                    csv_number(run["max_score"]),
                    " | ".join(shown(p, run["lang"]) for p in run["problems"]),
                    str(run["sha256"]),
                    str(run["graded_at"]),
                ]
            )
        return csv_text(rows)


READ_SECONDS = 300  # the longest any read of a gradebook may take (a class of thousands reads in seconds)
MAX_JSON_CHARS = 1 << 20  # one JSON value of a run or check (a list of problems or mistake ids)
MAX_JSON_DEPTH = 4
MAX_PROBLEM_DEPTH = 8  # a list of kept messages, one message naming another ({"say", "values"} twice)
MAX_TEXT_CHARS = 1 << 22  # one text value (a check's output is capped far below when it is written)

_RUN_READ = (
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
    "assignment",
    "definition",
)
_CHECK_READ = ("run_id", "name", "exercise", "score", "max_score", "status", "output", "hidden", "mistakes", "problem")
_RUN_COLUMNS = _RUN_READ
_CHECK_COLUMNS = ("run_id", "position", *_CHECK_READ[1:])
_DEFINITION_COLUMNS = ("hash", "assignment", "definition", "recorded_at")
_FINGERPRINT_COLUMNS = ("run_id", "position", "fingerprint")
_LATENESS_COLUMNS = (
    "id",
    "student",
    "assignment",
    "definition",
    "submitted_at",
    "late_marked",
    "late_by",
    "raw",
    "penalty",
    "final",
    "source",
    "recorded_at",
)
_DEFAULTS = {"problem_kinds": "'[]'", "mistakes": "'[]'", "problem": "''", "assignment": "''", "definition": "''"}
# the columns of each table in a file of schema version 1, 2 and 3 (definitions: version 3 only)
_COLUMNS_BY_VERSION = {
    "meta": [["key", "value"]],
    "runs": [list(_RUN_COLUMNS[:-3]), list(_RUN_COLUMNS[:-2]), list(_RUN_COLUMNS)],
    "checks": [list(_CHECK_COLUMNS[:-2]), list(_CHECK_COLUMNS)],
    "definitions": [list(_DEFINITION_COLUMNS)],
    "fingerprints": [list(_FINGERPRINT_COLUMNS)],
    "lateness": [list(_LATENESS_COLUMNS)],
}
_OPTIONAL_TABLES = ("definitions", "fingerprints", "lateness")
_QUIZ_TABLES = ("quiz_runs", "quiz_results")  # coursegen/quiz/grade.py; never read by this reader
_SERVICE_TABLES = ("service_tokens", "service_submissions")  # coursegen/service/store.py TABLES
_TRIGGERS = {
    f"{table}_append_only_{event.lower()}": (
        table,
        f"CREATE TRIGGER {table}_append_only_{event.lower()} BEFORE {event} ON {table} "
        "BEGIN SELECT RAISE(ABORT, 'the gradebook is append-only'); END",
    )
    for table in ("runs", "checks", "definitions", "fingerprints", "lateness")
    for event in ("UPDATE", "DELETE")
}


def _names(path: Path, text: object, field: str) -> list[str]:
    """A JSON list of names (problems, mistake ids, problem kinds), bounded before it is decoded."""
    from grader.jsonshape import shape_of

    if not isinstance(text, str) or len(text) > MAX_JSON_CHARS:
        raise GradebookError(f"{path}: not a gradebook: a {field} value is not a JSON text of at most 1 MB")
    values, depth = shape_of(text, max_values=100_000)
    if values > 100_000 or depth > MAX_JSON_DEPTH:
        raise GradebookError(f"{path}: not a gradebook: a {field} value is nested {depth} deep or too large")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise GradebookError(f"{path}: not a gradebook: a {field} value is not JSON") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GradebookError(f"{path}: not a gradebook: a {field} value is not a list of names")
    return value


def _problems(path: Path, text: object) -> list[Problem]:
    """A run's problems: kinds with their values (grader.feedback.Said), or the sentences a run
    stored before problems were kept so (still read, shown as they are)."""
    from grader.jsonshape import shape_of

    if not isinstance(text, str) or len(text) > MAX_JSON_CHARS:
        raise GradebookError(f"{path}: not a gradebook: a problems value is not a JSON text of at most 1 MB")
    values, depth = shape_of(text, max_values=100_000)
    if values > 100_000 or depth > MAX_PROBLEM_DEPTH:
        raise GradebookError(f"{path}: not a gradebook: a problems value is nested {depth} deep or too large")
    try:
        value = json.loads(text)
        if not isinstance(value, list):
            raise ValueError("not a list")
        return [restored(item) for item in value]
    except (ValueError, RecursionError) as exc:
        raise GradebookError(f"{path}: not a gradebook: a problems value is not a list of problems ({exc})") from None


def _definition(path: Path, text: object) -> Definition:
    """One stored assignment definition, its size and nesting bounded before it is decoded."""
    from grader.reporting.assignments import AssignmentError
    from grader.jsonshape import shape_of

    if not isinstance(text, str) or len(text) > MAX_JSON_CHARS:
        raise GradebookError(f"{path}: not a gradebook: a definitions value is not a JSON text of at most 1 MB")
    values, depth = shape_of(text, max_values=100_000)
    if values > 100_000 or depth > MAX_JSON_DEPTH:
        raise GradebookError(f"{path}: not a gradebook: a definitions value is nested {depth} deep or too large")
    try:
        return Definition.from_json(json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, AssignmentError) as exc:
        raise GradebookError(f"{path}: not a gradebook: a stored assignment definition is unreadable ({exc})") from None


def _check_values(path: Path, runs: list, checks: list) -> None:
    """Every value of a read-only gradebook has its column's type (SQLite stores any type anywhere)."""
    text = (str,)
    number = (int, float)
    run_types = [(int,), text, text, text, text, text, text, number, number, text, text, text, text, text, text]
    check_types = [(int,), text, text, number, number, text, text, (int,), text, text]
    for rows, types, table in ((runs, run_types, "runs"), (checks, check_types, "checks")):
        for row in rows:
            for value, allowed, name in zip(row, types, _RUN_READ if table == "runs" else _CHECK_READ):
                if not isinstance(value, allowed) or isinstance(value, bool):
                    raise GradebookError(
                        f"{path}: not a gradebook: {table}.{name} holds a {type(value).__name__}, "
                        f"expected {'a number' if allowed is number else allowed[0].__name__}"
                    )
                if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
                    raise GradebookError(f"{path}: not a gradebook: a {table}.{name} value is over 4 MB")


def _check_lateness(path: Path, record: dict) -> None:
    """A lateness row of a read-only gradebook has its columns' types."""
    text, number = (str,), (int, float)
    types = dict(
        student=text, assignment=text, definition=text, submitted_at=text, late_marked=(int,), raw=number,
        penalty=number, final=number, source=text, recorded_at=text,
    )  # fmt: skip
    for name, allowed in types.items():
        value = record[name]
        if not isinstance(value, allowed) or isinstance(value, bool) or (isinstance(value, str) and len(value) > 4096):
            raise GradebookError(f"{path}: not a gradebook: lateness.{name} holds an unexpected {type(value).__name__}")
    if record["late_by"] is not None and not isinstance(record["late_by"], (int, float)):
        raise GradebookError(f"{path}: not a gradebook: lateness.late_by holds a {type(record['late_by']).__name__}")


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
        assignment=run.get("assignment", ""),
        definition=run.get("definition", ""),
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
    sources = [Gradebook(first, create=False, read_only=True)]
    try:
        sources.append(Gradebook(second, create=False, read_only=True))
    except GradebookError:
        sources[0].close()
        raise
    try:
        seeds = {seed for s in sources if (seed := s.seed()) is not None}
        if len(seeds) > 1:
            raise GradebookError(
                f"{first} and {second} were graded with different batch seeds; they are not shards of one batch"
            )
        definitions = [d for source in sources for d in source.definitions()]
        late_rows = sorted(
            (row for source in sources for row in source.lateness_rows()),
            key=lambda r: (r["recorded_at"], r["student"], r["assignment"]),
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
            for definition in definitions:
                target.record_definition(definition)
            for row in late_rows:
                target.record_lateness(
                    row["student"],
                    row["assignment"],
                    row["definition"],
                    **{k: row[k] for k in _LATENESS_COLUMNS[4:] if k != "late_marked"},
                    late_marked=bool(row["late_marked"]),
                )
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
