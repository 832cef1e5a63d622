"""The late policy of an assignment, in one pure function: what a submission's time costs.

    apply_late_policy(assignment, submitted_at, student_id, raw) -> Lateness(raw, late_by, penalty, final)
    late_penalty(due, policy, submitted_at, student_id, raw)   the same from a due date and a LatePolicy
    policy = LatePolicy(grace_minutes=15, per_day=10.0, last_day=3, extensions={"s1": 2})
    read_submitted_at(roster) -> {student: time}      the grading roster's `submitted_at` column
    times_of(students, roster=, lms_times=, late_marked=, lms=) -> {student: SubmittedAt}
    describe(lateness, submitted) -> dict              what a result and the gradebook carry
    share_of(raw, share) -> (penalty, final)           the service's share fixed at receipt, once graded
    late_by_text(seconds, lang) -> "1 d 2 h 1 min" / "1 天 2 小时 1 分钟"

An assignment (content/course.yaml) may declare

    due: 2026-03-02T23:59:00+08:00      # ISO date-time (a date alone means 23:59:59 UTC that day)
    late:
      grace_minutes: 15                  # late by up to this much is on time
      per_day: 10                        # percent of the raw score lost per day or part of a day late
      last_day: 3                        # later than this many days after the due time scores 0
      extensions: extensions.csv         # `student,days` rows: that student's due time moves by `days`

Rules, in order: a student's due time is `due` plus their extension (days, may be fractional);
`late_by` = submitted_at - that due time (zero or less: on time); within the grace period: on time;
otherwise the number of days late is counted in whole days, each part of a day a whole one
(1 minute late = day 1), measured from the due time (not from the end of the grace);
beyond `last_day` days: the penalty is the whole raw score; else `per_day` percent of the raw
score per day, at most all of it. No time known (None): no penalty, unless the LMS marked the
submission late (`late_marked`, Canvas's LATE without a time): then one day's penalty.

Nothing here imports torch, the grader or coursegen: the batch grader, the grade exports and the
grading service (with its own receipt time) call the same function.
"""

from __future__ import annotations

from grader.errors import CoursegenError

import csv
import datetime
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

DAY = datetime.timedelta(days=1)


class LatePolicyError(CoursegenError):
    """A due date or a late policy that cannot be read (with the file, line and field)."""

    exit_status = 1


@dataclass(frozen=True)
class LatePolicy:
    grace_minutes: float = 0.0
    per_day: float = 0.0  # percent of the raw score, per day or part of a day late
    last_day: int | None = None  # later than this many days: 0
    extensions: Mapping[str, float] = field(default_factory=dict)  # student -> days added to the due time


@dataclass(frozen=True)
class Lateness:
    raw: float  # the score the checks gave
    late_by: datetime.timedelta | None  # after the student's due time (None: no time known, or on time)
    penalty: float  # points taken off
    final: float  # raw - penalty, never below 0

    @property
    def days_late(self) -> int:
        if self.late_by is None or self.late_by <= datetime.timedelta(0):
            return 0
        return math.ceil(self.late_by / DAY)

    def to_json(self) -> dict:
        return {
            "raw": self.raw,
            "late_by_seconds": None if self.late_by is None else self.late_by.total_seconds(),
            "penalty": self.penalty,
            "final": self.final,
        }


def parse_due(value: object) -> datetime.datetime | None:
    """`due:` as written (a date, a date-time, with or without offset) as an aware date-time: a date
    alone is the end of that day (23:59:59) in UTC; a date-time without an offset is UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        moment = value
    elif isinstance(value, datetime.date):
        moment = datetime.datetime.combine(value, datetime.time(23, 59, 59))
    else:
        text = str(value).strip()
        try:
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            raise LatePolicyError(
                f"due: {text!r} is not an ISO date or date-time (e.g. 2026-03-02T23:59+08:00)"
            ) from None
        if len(text) == 10:
            moment = datetime.datetime.combine(moment.date(), datetime.time(23, 59, 59))
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def apply_late_policy(
    assignment: object,
    submitted_at: datetime.datetime | None,
    student_id: str,
    raw: float,
    *,
    late_marked: bool = False,
) -> Lateness:
    """`late_penalty` with the due date and policy of `assignment` (grader.reporting.assignments.
    Assignment: its `due` and `late`; an assignment without them costs nothing)."""
    return late_penalty(
        getattr(assignment, "due", None),
        getattr(assignment, "late", None),
        submitted_at,
        student_id,
        raw,
        late_marked=late_marked,
    )


def late_penalty(
    due: object,
    policy: LatePolicy | None,
    submitted_at: datetime.datetime | None,
    student_id: str,
    raw: float,
    *,
    late_marked: bool = False,
) -> Lateness:
    """What `raw` becomes for a submission of `student_id` made at `submitted_at` (an aware
    date-time; a naive one is taken as UTC) against `due` (as parse_due reads it) and `policy`."""
    raw = float(raw)
    due_at = parse_due(due)
    if due_at is None or policy is None:
        return Lateness(raw, None, 0.0, raw)
    due_at += datetime.timedelta(days=float(policy.extensions.get(student_id, 0.0)))
    if submitted_at is None:
        if not late_marked:
            return Lateness(raw, None, 0.0, raw)
        days = 1
        late_by = None
    else:
        if submitted_at.tzinfo is None:
            submitted_at = submitted_at.replace(tzinfo=datetime.timezone.utc)
        late_by = submitted_at - due_at
        if late_by <= datetime.timedelta(minutes=policy.grace_minutes):
            return Lateness(raw, None, 0.0, raw)
        days = math.ceil(late_by / DAY)
    if policy.last_day is not None and days > policy.last_day:
        penalty = raw
    else:
        penalty = min(raw, raw * policy.per_day / 100.0 * days)
    penalty = round(penalty, 6) + 0.0
    return Lateness(raw, late_by, penalty, round(raw - penalty, 6) + 0.0)


def share_of(raw: float, share: float | None) -> tuple[float, float]:
    """(penalty, final) of a raw score when the late policy takes `share` of it (the grading
    service fixes the share at receipt, before the raw score is known)."""
    raw = float(raw)
    penalty = round(min(raw, raw * float(share or 0.0)), 6) + 0.0
    return penalty, round(raw - penalty, 6) + 0.0


def read_extensions(path: Path | str) -> dict[str, float]:
    """`student,days` rows (header row first) -> {student: days}; LatePolicyError at file:line."""
    path = Path(path)
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as exc:
        raise LatePolicyError(f"{path}: cannot read the extensions ({exc})") from None
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["student", "days"]:
        raise LatePolicyError(f"{path}:1:1: expected the header 'student,days'")
    found: dict[str, float] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            found[row[0].strip()] = float(row[1])
        except (IndexError, ValueError):
            raise LatePolicyError(
                f"{path}:{line}:1: expected 'student,days' (days a number), got {','.join(row)!r}"
            ) from None
    return found


def read_submitted_at(path: Path | str) -> dict[str, datetime.datetime]:
    """The `submitted_at` column of a grading roster (`student,submission,submitted_at`, header row
    first; other columns ignored) -> {student: time}. Each value is an ISO 8601 date-time WITH its
    offset (`2026-03-02T23:10:00+08:00`, `...Z`); an empty cell means no time known. A value that
    is not one is a LatePolicyError at file:line:column."""
    path = Path(path)
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as exc:
        raise LatePolicyError(f"{path}: cannot read ({exc})") from None
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if "submitted_at" not in header:
        return {}
    if "student" not in header:
        raise LatePolicyError(f"{path}:1:1: a submitted_at column needs a student column beside it")
    who, when = header.index("student"), header.index("submitted_at")
    found: dict[str, datetime.datetime] = {}
    for line, row in enumerate(rows[1:], start=2):
        text = row[when].strip() if len(row) > when else ""
        student = row[who].strip() if len(row) > who else ""
        if not text or not student:
            continue
        moment = None
        try:
            moment = datetime.datetime.fromisoformat(text)
        except ValueError:
            pass
        if moment is None or moment.tzinfo is None:
            raise LatePolicyError(
                f"{path}:{line}:{when + 1}: submitted_at {text!r}: expected an ISO 8601 date-time with its offset, "
                "e.g. 2026-03-02T23:10:00+08:00 or 2026-03-02T15:10:00Z"
            )
        found[student] = moment
    return found


@dataclass(frozen=True)
class SubmittedAt:
    """When a student's submission arrived, as far as it is known, and who said so."""

    at: datetime.datetime | None = None
    late_marked: bool = False  # the LMS marked it late without giving a time (Canvas's LATE)
    source: str = ""  # roster, gradescope, classroom, canvas, service; "" when nothing is known


def times_of(
    students: list[str],
    *,
    roster: Mapping[str, datetime.datetime] | None = None,
    lms_times: Mapping[str, datetime.datetime] | None = None,
    late_marked: set[str] | frozenset[str] = frozenset(),
    lms: str = "",
) -> dict[str, SubmittedAt]:
    """Each student's SubmittedAt: the instructor's roster column first (it corrects the LMS),
    then the LMS download's time (Gradescope's created_at, Classroom's last commit), then the
    LMS's late mark (Canvas), else unknown."""
    found: dict[str, SubmittedAt] = {}
    for student in students:
        if roster and student in roster:
            found[student] = SubmittedAt(roster[student], False, "roster")
        elif lms_times and student in lms_times:
            found[student] = SubmittedAt(lms_times[student], False, lms)
        elif student in late_marked:
            found[student] = SubmittedAt(None, True, lms)
        else:
            found[student] = SubmittedAt()
    return found


def describe(lateness: Lateness, when: SubmittedAt) -> dict:
    """What a result, a gradebook row and a report carry: the time, where it came from, and the four numbers."""
    return {
        "submitted_at": when.at.isoformat() if when.at is not None else "",
        "late_marked": when.late_marked,
        "source": when.source,
        **lateness.to_json(),
    }


def late_by_text(seconds: float | None, lang: str = "en", *, late_marked: bool = False) -> str:
    """`2 d 3 h 5 min` (zh `2 天 3 小时 5 分钟`); on time: `on time` / `按时`; Canvas's late mark
    without a time: `late (marked by the LMS)` / `迟交（LMS 标记）`."""
    if seconds is None or seconds <= 0:
        if late_marked:
            return "迟交（LMS 标记）" if lang == "zh" else "late (marked by the LMS)"
        return "按时" if lang == "zh" else "on time"
    minutes = int(math.ceil(seconds / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    units = ("天", "小时", "分钟") if lang == "zh" else ("d", "h", "min")
    parts = [f"{n} {u}" for n, u in zip((days, hours, mins), units) if n]
    return " ".join(parts)
