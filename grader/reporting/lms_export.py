"""Grade return: the CSV files an LMS gradebook imports, from the latest run of every submission.

    coursegen gradebook export --format canvas --roster lms.csv --assignment ID [--title T] [--assignment-id 42]
    coursegen gradebook export --format moodle --roster lms.csv --assignment ID [--moodle-id idnumber]
    coursegen gradebook export --format csv --assignment ID [--roster lms.csv]

`--assignment ID` names a course assignment (content/course.yaml, grader/reporting/assignments.py): only
the runs graded against one definition of it count, and every student is out of its maximum
(coursegen/report/shown_assignment.py picks the definition and refuses a gradebook that mixes several).

A student's score on an exercise is the best of their latest runs that graded it (a student who
handed in both vectors.py and vectors.ipynb is not counted twice); the total is the sum over the
exercises, out of the sum of their points (`--out-of N` rescales it to the LMS's points).

Lateness (issue 34.3): where the gradebook keeps what the assignment's late policy cost a student
(its `lateness` table, written by `coursegen grade --assignment` and the grading service), the
grade a file imports is the FINAL score (raw - penalty): `csv` adds `raw_score`, `late_by_seconds`
and `penalty` columns beside `score`; `moodle` adds `Raw score`, `Late by (s)` and `Late penalty`
after its grade column (left unmapped, Moodle's import ignores them); `canvas` carries the final
score only, since Canvas's import makes a new assignment of every extra column.

The roster (UTF-8 CSV, header row) maps the grader's student ids to the LMS's:
    student,lms_id[,name,section,sis_user_id,sis_login_id]
Canvas needs `lms_id` = the Canvas user ID (the "ID" column of a Canvas gradebook export);
Moodle needs the value of the user field chosen with --moodle-id (ID number, email address or
username). A graded student missing from the roster is an error (the grade would be lost); a
roster student without a submission gets an empty cell, which both LMSs import as "no change".

Every cell goes through grader.textsafe (csv_cell / csv_number): no cell starts a formula.
The exact columns are documented in docs/instructors.md, "Returning grades to the LMS".
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from grader.reporting.assignments import Definition
from grader.textsafe import csv_number, csv_text
from grader.errors import CoursegenError

FORMATS = ("canvas", "moodle", "csv")
MOODLE_ID_COLUMNS = {"idnumber": "ID number", "email": "Email address", "username": "Username"}
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
ROSTER_COLUMNS = ("student", "lms_id", "name", "section", "sis_user_id", "sis_login_id")


class LmsExportError(CoursegenError):
    """The export cannot be written (a bad roster, a missing option, an unlisted student)."""


@dataclass(frozen=True)
class RosterEntry:
    student: str
    lms_id: str
    name: str = ""
    section: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""


def moodle_id_warnings(roster: dict[str, RosterEntry], moodle_id: str) -> list[str]:
    """Warnings when the roster's `lms_id` values cannot be what --moodle-id says they are: with
    `email`, ids that are not e-mail addresses (Canvas user ids, say) would match no Moodle user."""
    if moodle_id != "email":
        return []
    wrong = [entry for entry in roster.values() if "@" not in entry.lms_id]
    if not wrong:
        return []
    shown = ", ".join(f"{e.student}: {e.lms_id!r}" for e in wrong[:3]) + (" ..." if len(wrong) > 3 else "")
    return [
        f"--moodle-id email fills Moodle's 'Email address' column, but {len(wrong)} of {len(roster)} roster "
        f"lms_id value(s) are not e-mail addresses ({shown}); Moodle would match no user for them. Put each "
        "student's Moodle e-mail in the roster's lms_id, or use --moodle-id idnumber|username"
    ]


def read_lms_roster(path: Path) -> dict[str, RosterEntry]:
    """student id -> RosterEntry; errors name the file, line and column."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise LmsExportError(f"{path}: cannot read the roster ({exc})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise LmsExportError(f"{path}:1:1: empty roster; expected the header 'student,lms_id'")
    header = [cell.strip().lower() for cell in rows[0]]
    unknown = [h for h in header if h not in ROSTER_COLUMNS]
    if unknown or header[:2] != ["student", "lms_id"]:
        column = header.index(unknown[0]) + 1 if unknown else 1
        raise LmsExportError(
            f"{path}:1:{column}: expected the header 'student,lms_id' followed by any of "
            f"{', '.join(ROSTER_COLUMNS[2:])}; got {','.join(rows[0])!r}"
        )
    roster: dict[str, RosterEntry] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise LmsExportError(f"{path}:{line}:1: expected {len(header)} fields ({','.join(header)}), got {len(row)}")
        values = dict(zip(header, (cell.strip() for cell in row)))
        for column, name in enumerate(("student", "lms_id"), start=1):
            if not values[name]:
                raise LmsExportError(f"{path}:{line}:{column}: empty '{name}'")
        if values["student"] in roster:
            raise LmsExportError(f"{path}:{line}:1: student {values['student']!r} is listed twice")
        roster[values["student"]] = RosterEntry(**values)
    return roster


def student_scores(runs: list[dict], exercises: list[str]) -> dict[str, dict[str, tuple[float, float]]]:
    """student -> exercise -> (best score, its maximum) over the latest run of each submission."""
    latest: dict[tuple[str, str], dict] = {}
    for run in runs:
        key = (run["student"], run["submission"])
        if key not in latest or run["id"] > latest[key]["id"]:
            latest[key] = run
    scores: dict[str, dict[str, tuple[float, float]]] = {}
    for (student, _), run in sorted(latest.items()):
        per_exercise: dict[str, list[float]] = {}
        for check in run["tests"]:
            earned = per_exercise.setdefault(check["exercise"], [0.0, 0.0])
            earned[0] += check["score"]
            earned[1] += check["max_score"]
        mine = scores.setdefault(student, {})
        for exercise, (score, top) in per_exercise.items():
            if exercise not in mine or score > mine[exercise][0]:
                mine[exercise] = (score, top)
    order = {name: i for i, name in enumerate(exercises)}
    return {s: dict(sorted(v.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))) for s, v in scores.items()}


def _total(
    per_exercise: dict[str, tuple[float, float]],
    out_of: float | None,
    top: float | None = None,
    late: dict | None = None,
    part: str = "final",
) -> float:
    """The student's `part` (raw, penalty or final) of the assignment, rescaled `out_of`."""
    raw = sum(s for s, _ in per_exercise.values())
    score = late_terms(raw, late)[part]
    top = sum(t for _, t in per_exercise.values()) if top is None else top
    if out_of is None:
        return score
    return round(score / top * out_of, 4) if top else 0.0


def late_terms(raw: float, late: dict | None) -> dict[str, float]:
    """{raw, penalty, final} of a raw score under a stored lateness row (gradebook `lateness`): its
    penalty, or, when the raw score changed since (a re-grade without the policy applied again),
    the same share of the new raw score."""
    raw = round(raw, 6) + 0.0
    if late is None or not late["penalty"]:
        return {"raw": raw, "penalty": 0.0, "final": raw}
    if abs(late["raw"] - raw) <= 1e-6:
        penalty = float(late["penalty"])
    else:
        penalty = raw * late["penalty"] / late["raw"] if late["raw"] else 0.0
    penalty = round(min(raw, penalty), 6) + 0.0
    return {"raw": raw, "penalty": penalty, "final": round(raw - penalty, 6) + 0.0}


def _late_by(late: dict | None) -> str:
    return "" if late is None or late["late_by"] is None else csv_number(late["late_by"])


def export(
    runs: list[dict],
    fmt: str,
    *,
    exercises: list[str],
    roster: dict[str, RosterEntry] | None = None,
    assignment: str | None = None,
    assignment_id: str | None = None,
    moodle_id: str = "idnumber",
    out_of: float | None = None,
    definition: Definition | None = None,
    lateness: dict[str, dict] | None = None,
) -> str:
    """The CSV text for `fmt` (one of FORMATS). `assignment` is the LMS column's title.
    `lateness`: student -> the gradebook's latest lateness row of that definition (None: the
    assignment has none recorded; no lateness columns).

    With `definition` (grader/reporting/assignments.py) only the runs graded against it count, and every
    student is out of its maximum: the same `max_score`, `percent` and `--out-of` scale for all,
    a roster student without a submission 0 of it in csv (empty, "no change", in the LMS formats)."""
    if fmt not in FORMATS:
        raise LmsExportError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if out_of is not None and out_of <= 0:
        raise LmsExportError(f"--out-of {out_of:g}: expected a positive number of points")
    top: float | None = None
    if definition is not None:
        exercises = list(definition.names)
        runs = [
            r for r in runs if r.get("assignment") == definition.assignment and r.get("definition") == definition.hash
        ]
        top = definition.max_score
    scores = student_scores(runs, exercises)
    if definition is not None:
        scores = {s: {e: v for e, v in per.items() if e in exercises} for s, per in scores.items()}
    if fmt != "csv":
        if roster is None:
            raise LmsExportError(
                f"--format {fmt} needs --roster (student,lms_id): the LMS knows students by its own ids"
            )
        if not assignment or not assignment.strip():
            raise LmsExportError(f"--format {fmt} needs --assignment NAME: the grade column the LMS imports")
    if roster is not None:
        unlisted = sorted(set(scores) - set(roster))
        if unlisted:
            shown = ", ".join(repr(s) for s in unlisted[:5]) + (" ..." if len(unlisted) > 5 else "")
            raise LmsExportError(
                f"{len(unlisted)} graded student(s) are not in the roster: {shown}; add them so that no grade is lost"
            )
    rows: list[list] = []
    if fmt == "canvas":
        assert roster is not None and assignment is not None  # required above for an LMS format
        column = f"{assignment.strip()} ({assignment_id.strip()})" if assignment_id else assignment.strip()
        rows.append([*CANVAS_COLUMNS, column])
        for student, entry in roster.items():  # in the roster's order
            late = (lateness or {}).get(student)
            cell = csv_number(_total(scores[student], out_of, top, late)) if student in scores else ""
            rows.append(
                [
                    entry.name or student,
                    entry.lms_id,
                    entry.sis_user_id,
                    entry.sis_login_id,
                    entry.section,
                    cell,
                ]
            )
    elif fmt == "moodle":
        if moodle_id not in MOODLE_ID_COLUMNS:
            raise LmsExportError(f"--moodle-id {moodle_id!r}: expected one of {', '.join(MOODLE_ID_COLUMNS)}")
        assert roster is not None and assignment is not None  # required above for an LMS format
        extra = ["Raw score", "Late by (s)", "Late penalty"] if lateness is not None else []
        rows.append([MOODLE_ID_COLUMNS[moodle_id], assignment.strip(), *extra])
        for student, entry in roster.items():  # in the roster's order
            late = (lateness or {}).get(student)
            if student not in scores:
                rows.append([entry.lms_id, "", *([""] * len(extra))])
                continue
            row = [entry.lms_id, csv_number(_total(scores[student], out_of, top, late))]
            if extra:
                row += [
                    csv_number(_total(scores[student], out_of, top, late, "raw")),
                    _late_by(late),
                    csv_number(_total(scores[student], out_of, top, late, "penalty")),
                ]
            rows.append(row)
    else:
        graded = (
            exercises if definition is not None else [e for e in exercises if any(e in per for per in scores.values())]
        )
        late_columns = ["raw_score", "late_by_seconds", "penalty"] if lateness is not None else []
        header = ["student", *(["lms_id"] if roster is not None else []), "score", "max_score", "percent"]
        rows.append([*header, *late_columns, *graded])
        students = sorted(set(scores) | set(roster or {}))
        for student in students:
            per = scores.get(student, {})
            late = (lateness or {}).get(student)
            terms = late_terms(sum(s for s, _ in per.values()), late)
            score = terms["final"]
            best = sum(t for _, t in per.values()) if top is None else top
            row = [student]
            if roster is not None:
                row.append(roster[student].lms_id if student in roster else "")
            row += [csv_number(score), csv_number(best), csv_number(round(100 * score / best, 2)) if best else ""]
            if late_columns:
                row += [csv_number(terms["raw"]), _late_by(late), csv_number(terms["penalty"])]
            missing = "" if definition is None else csv_number(0.0)  # out of the assignment: not handed in is 0
            row += [csv_number(per[e][0]) if e in per else missing for e in graded]
            rows.append(row)
    return csv_text(rows, lineterminator="\r\n" if fmt != "csv" else "\n")
