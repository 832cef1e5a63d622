"""The grading service's tables, kept in the gradebook (one SQLite file, WAL) beside its runs.

    service_tokens(selector, secret_sha256, student, role, created_at, revoked_at)
        one row per issued token: `role` is "student" or "instructor"; the token itself is never
        stored, only the sha256 of its secret part (see coursegen/service/tokens.py)
    service_submissions(seq, id, student, assignment, files, lang, status, submitted_at,
                        claimed_at, finished_at, attempts, score, max_score, lateness, penalty,
                        result, reason)
        the durable queue: a row is written (with its files already on disk) before the service
        answers 202; `status` goes queued -> grading -> done | failed

The tables are added by `ServiceStore(path)` in one transaction (CREATE TABLE IF NOT EXISTS), with
`meta.service_schema` = SERVICE_SCHEMA; the gradebook's own schema version does not change, so a
gradebook that holds them is read by every reader as before (grader/reporting/gradebook.py knows
their names), and a gradebook without them (any older file) simply has no queue yet.

Exactly once: a claimed row is 'grading'; its result is recorded as the gradebook run whose uid is
`run_uid(id)` (UNIQUE), then the row is marked done. A service killed at any moment leaves rows
'grading'; the next start puts them back in the queue (`requeue_abandoned`), and a claimed row whose
run is already recorded is marked done without being graded again (`recorded`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

SERVICE_SCHEMA = "1"
TABLES = ("service_tokens", "service_submissions")
STATUSES = ("queued", "grading", "done", "failed")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS service_tokens (
        selector TEXT PRIMARY KEY,
        secret_sha256 TEXT NOT NULL,
        student TEXT NOT NULL,
        role TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS service_submissions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        student TEXT NOT NULL,
        assignment TEXT NOT NULL,
        files TEXT NOT NULL,
        lang TEXT NOT NULL,
        status TEXT NOT NULL,
        submitted_at TEXT NOT NULL,
        claimed_at TEXT,
        finished_at TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        score REAL,
        max_score REAL,
        lateness REAL,
        penalty REAL NOT NULL DEFAULT 0,
        result TEXT,
        reason TEXT
    )""",
)

# a submission whose grading process died this many times is failed, not retried for ever
MAX_ATTEMPTS = 3


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def run_uid(submission_id: str) -> str:
    """The uid of the gradebook run that holds a service submission's result (UNIQUE in runs)."""
    return f"service:{submission_id}"


class ServiceStore:
    """The service's tables in gradebook `path`. One connection per thread (sqlite3 objects are
    not shared across threads); every write is one transaction."""

    def __init__(self, path: Path | str, busy_timeout: float = 30.0):
        self.path = Path(path)
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('service_schema', ?)", (SERVICE_SCHEMA,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None)
            db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")  # an accepted submission survives a power cut
            self._local.db = db
        return db

    # ---- tokens --------------------------------------------------------------------------------

    def add_token(self, selector: str, secret_sha256: str, student: str, role: str) -> None:
        self._db().execute(
            "INSERT INTO service_tokens (selector, secret_sha256, student, role, created_at) VALUES (?, ?, ?, ?, ?)",
            (selector, secret_sha256, student, role, now_utc()),
        )

    def token(self, selector: str) -> tuple[str, str, str, str | None] | None:
        """(secret_sha256, student, role, revoked_at) of the token with this selector, or None."""
        row = (
            self._db()
            .execute(
                "SELECT secret_sha256, student, role, revoked_at FROM service_tokens WHERE selector = ?", (selector,)
            )
            .fetchone()
        )
        return (row[0], row[1], row[2], row[3]) if row else None

    def revoke(self, *, student: str | None = None, selector: str | None = None) -> int:
        """Revoke every live token of `student` (or the one with `selector`); how many were revoked."""
        column, value = ("student", student) if student is not None else ("selector", selector)
        cursor = self._db().execute(
            f"UPDATE service_tokens SET revoked_at = ? WHERE {column} = ? AND revoked_at IS NULL", (now_utc(), value)
        )
        return cursor.rowcount

    # ---- the queue -----------------------------------------------------------------------------

    def enqueue(
        self,
        submission_id: str,
        student: str,
        assignment: str,
        files: list[str],
        lang: str,
        submitted_at: str,
        *,
        lateness: float | None = None,
        penalty: float = 0.0,
        quota: int | None = None,
        since: str = "",
    ) -> tuple[int, str | None] | None:
        """Accept a submission whose files are on disk: committed when this returns None. With
        `quota`, refused (nothing written) when `student` made `quota` submissions to `assignment`
        at or after `since`: then (their count, the oldest one's time). Counted and written in one
        transaction, so concurrent requests cannot both pass the quota."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if quota is not None:
                count, oldest = db.execute(
                    "SELECT COUNT(*), MIN(submitted_at) FROM service_submissions "
                    "WHERE student = ? AND assignment = ? AND submitted_at >= ?",
                    (student, assignment, since),
                ).fetchone()
                if count >= quota:
                    db.execute("ROLLBACK")
                    return int(count), oldest
            db.execute(
                "INSERT INTO service_submissions (id, student, assignment, files, lang, status, submitted_at, "
                "lateness, penalty) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
                (submission_id, student, assignment, json.dumps(files), lang, submitted_at, lateness, penalty),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return None

    def requeue_abandoned(self) -> int:
        """Rows left 'grading' by a service that died go back to the queue; how many."""
        return self._db().execute("UPDATE service_submissions SET status = 'queued' WHERE status = 'grading'").rowcount

    def claim(self, langs: tuple[str, ...]) -> dict[str, Any] | None:
        """The oldest queued submission in one of `langs`, marked 'grading' in the same transaction."""
        db = self._db()
        marks = ", ".join("?" for _ in langs)
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                f"SELECT seq FROM service_submissions WHERE status = 'queued' AND lang IN ({marks}) ORDER BY seq LIMIT 1",
                langs,
            ).fetchone()
            if row is None:
                db.execute("COMMIT")
                return None
            db.execute(
                "UPDATE service_submissions SET status = 'grading', claimed_at = ?, attempts = attempts + 1 "
                "WHERE seq = ?",
                (now_utc(), row[0]),
            )
            claimed = self._row(db, "seq = ?", (row[0],))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return claimed

    def recorded(self, submission_id: str) -> bool:
        """Whether the gradebook already holds this submission's run (graded before a crash)."""
        return (
            self._db().execute("SELECT 1 FROM runs WHERE uid = ? LIMIT 1", (run_uid(submission_id),)).fetchone()
            is not None
        )

    def recorded_result(self, submission_id: str) -> tuple[float, float] | None:
        row = (
            self._db()
            .execute("SELECT score, max_score FROM runs WHERE uid = ? LIMIT 1", (run_uid(submission_id),))
            .fetchone()
        )
        return (float(row[0]), float(row[1])) if row else None

    def finish(
        self,
        submission_id: str,
        *,
        status: str,
        score: float | None = None,
        max_score: float | None = None,
        result: dict | None = None,
        reason: str | None = None,
    ) -> None:
        self._db().execute(
            "UPDATE service_submissions SET status = ?, finished_at = ?, score = ?, max_score = ?, result = ?, "
            "reason = ? WHERE id = ?",
            (
                status,
                now_utc(),
                score,
                max_score,
                None if result is None else json.dumps(result, ensure_ascii=False),
                reason,
                submission_id,
            ),
        )

    def put_back(self, submission_id: str) -> None:
        self._db().execute("UPDATE service_submissions SET status = 'queued' WHERE id = ?", (submission_id,))

    def get(self, submission_id: str) -> dict[str, Any] | None:
        return self._row(self._db(), "id = ?", (submission_id,))

    def of_student(self, student: str, assignment: str | None = None) -> list[dict[str, Any]]:
        where, params = "student = ?", [student]
        if assignment is not None:
            where += " AND assignment = ?"
            params.append(assignment)
        return self._rows(self._db(), where + " ORDER BY seq", tuple(params))

    def counts(self) -> dict[str, int]:
        rows = self._db().execute("SELECT status, COUNT(*) FROM service_submissions GROUP BY status").fetchall()
        found = dict.fromkeys(STATUSES, 0)
        found.update({status: int(n) for status, n in rows})
        return found

    _COLUMNS = (
        "seq",
        "id",
        "student",
        "assignment",
        "files",
        "lang",
        "status",
        "submitted_at",
        "claimed_at",
        "finished_at",
        "attempts",
        "score",
        "max_score",
        "lateness",
        "penalty",
        "result",
        "reason",
    )

    def _rows(self, db: sqlite3.Connection, where: str, params: tuple) -> list[dict[str, Any]]:
        rows = db.execute(f"SELECT {', '.join(self._COLUMNS)} FROM service_submissions WHERE {where}", params)
        found = []
        for row in rows.fetchall():
            item = dict(zip(self._COLUMNS, row))
            item["files"] = json.loads(item["files"])
            item["result"] = json.loads(item["result"]) if item["result"] else None
            found.append(item)
        return found

    def _row(self, db: sqlite3.Connection, where: str, params: tuple) -> dict[str, Any] | None:
        rows = self._rows(db, where, params)
        return rows[0] if rows else None

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
