"""What the grading service refuses at the door, before anything is written: upload names, sizes
and counts, failed authentications per client, and submissions per student per hour.

Each refusal is a `Refusal(status, code, reason)` that the app answers as JSON
(`{"error": code, "reason": reason}`), with `Retry-After` when `retry_after` is set.
"""

from __future__ import annotations

from grader.errors import CoursegenError

import threading
import time
import unicodedata
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta

SUFFIXES = (".py", ".ipynb")
MAX_NAME_CHARS = 100


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 4 * 1024 * 1024  # the whole request body
    max_files: int = 8
    quota_per_hour: int = 60  # submissions per student per assignment in any hour
    auth_failures_per_minute: int = 20  # per client address


class Refusal(CoursegenError):
    """A request the service refuses: its HTTP status, a code and the reason sent to the client."""

    def __init__(self, status: int, code: str, reason: str, retry_after: int | None = None):
        super().__init__(reason)
        self.status, self.code, self.reason, self.retry_after = status, code, reason, retry_after


def check_name(name: str) -> str:
    """An uploaded file's name, if it is a plain file name the grader reads: never a path (no
    separator, no '..', no leading dot or dash), printable, at most MAX_NAME_CHARS characters,
    ending in .py or .ipynb. Refusal 422 otherwise."""

    def refuse(why: str) -> Refusal:
        return Refusal(422, "bad_file_name", f"file name {name[:MAX_NAME_CHARS]!r}: {why}")

    if not name:
        raise refuse("empty")
    if len(name) > MAX_NAME_CHARS:
        raise refuse(f"longer than {MAX_NAME_CHARS} characters")
    if "/" in name or "\\" in name or name in (".", ".."):
        raise refuse("a name is never a path: give the file's own name")
    if any(unicodedata.category(c).startswith(("C", "Z")) and c != " " for c in name):
        raise refuse("holds a control or separator character")
    if name.startswith((".", "-", " ")) or name.endswith(" "):
        raise refuse("starts with a dot, dash or space, or ends with a space")
    if not name.lower().endswith(SUFFIXES):
        raise refuse(f"expected a {' or '.join(SUFFIXES)} file")
    return name


def check_files(names: list[str], limits: Limits) -> list[str]:
    """The uploaded names, each checked, none twice, between one and `limits.max_files`."""
    if not names:
        raise Refusal(422, "no_file", "no file: send one or more parts named 'file'")
    if len(names) > limits.max_files:
        raise Refusal(422, "too_many_files", f"{len(names)} files; at most {limits.max_files} per submission")
    for name in names:
        check_name(name)
    if len({n.lower() for n in names}) != len(names):
        raise Refusal(422, "duplicate_file_name", "two files with the same name")
    return names


def quota_retry_after(count: int, oldest: str | None, quota: int, now: datetime) -> int | None:
    """Seconds until a student who made `count` submissions in the past hour (the oldest at
    `oldest`, ISO time) may submit again, or None when under `quota`."""
    if count < quota:
        return None
    if oldest is None:
        return 3600
    frees = datetime.fromisoformat(oldest) + timedelta(hours=1)
    return max(1, int((frees - now).total_seconds()) + 1)


class FailureLimiter:
    """Failed authentications per client address in a sliding minute: past the limit, the client
    is refused (429) before its token is even looked at, until the oldest failure ages out."""

    def __init__(self, per_minute: int, clock=time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._failures.setdefault(client, deque())
        while times and times[0] <= now - 60:
            times.popleft()
        return times

    def retry_after(self, client: str) -> int | None:
        with self._lock:
            now = self.clock()
            times = self._recent(client, now)
            if len(times) < self.per_minute:
                return None
            return max(1, int(times[0] + 60 - now) + 1)

    def failed(self, client: str) -> None:
        with self._lock:
            now = self.clock()
            self._recent(client, now).append(now)
            if len(self._failures) > 10_000:  # forget clients with no recent failure
                for key in [k for k, v in self._failures.items() if not v or v[-1] <= now - 60]:
                    del self._failures[key]
