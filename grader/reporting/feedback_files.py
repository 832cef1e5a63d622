"""Feedback back to students: one self-contained HTML file per student of an assignment.

    feedback_files(results, definition) -> {file name: html}      `coursegen feedback`

Each file holds ONE student's result (their latest runs of the assignment combined as `coursegen
grade --assignment` combines them: grader.reporting.assignments.per_student): the score out of the
assignment's maximum (where the assignment has a due date: the raw score, how late the work
arrived, the late penalty and the final score, from the gradebook's lateness table), then every check with its points, its message and hints for a visible check,
and only passed/failed for a hidden one (never a hidden check's inputs, values or text). Nothing
about another student. Written in the language the student was graded in; no script, no link, no
outside resource (inline CSS only), every text escaped. A file is named `<student id>.html`
(the LMS's id where the batch came from an LMS download: `--from`), for the LMS's feedback-file
upload or an e-mail merge.
"""

from __future__ import annotations

import html
import re
from typing import Sequence

from grader.feedback import say
from grader.reporting.assignments import Definition, per_student
from grader.reporting.results import SubmissionResult

STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
    "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;"
    "vertical-align:top}.passed{color:#176b2c}.failed{color:#a11}pre{white-space:pre-wrap;margin:0}"
)
TITLE = {"en": "Feedback", "zh": "反馈"}


def _points(value: float) -> str:
    return f"{value:g}"


def file_name(student: str) -> str:
    """`<student>.html`, the id made safe for a file name."""
    return re.sub(r"[^\w.@+-]", "_", student).lstrip(".") + ".html"


def _lateness_rows(result: SubmissionResult, late: dict | None, lang: str) -> str:
    """Raw score, late by, penalty and final score as a small table (empty without a lateness row)."""
    from grader.reporting.lateness import late_by_text
    from grader.reporting.lms_export import late_terms

    if late is None:
        return ""
    e = html.escape
    terms = late_terms(result.score, late)
    top = _points(result.max_score)
    shown = [
        ("raw_score", f"{_points(terms['raw'])}/{top}"),
        ("late_by", late_by_text(late["late_by"], lang, late_marked=bool(late["late_marked"]))),
        ("penalty", _points(terms["penalty"])),
        ("final_score", f"{_points(terms['final'])}/{top}"),
    ]
    if late.get("submitted_at"):
        shown.insert(1, ("submitted_at", str(late["submitted_at"])))
    cells = "".join(f"<tr><th>{e(say(key, lang))}</th><td>{e(value)}</td></tr>" for key, value in shown)
    return f'<table class="lateness">{cells}</table>\n'


def _final(result: SubmissionResult, late: dict | None) -> float:
    """The score the student keeps: raw less the late penalty."""
    from grader.reporting.lms_export import late_terms

    return late_terms(result.score, late)["final"]


def render_one(
    result: SubmissionResult, assignment_title: str, late: dict | None = None, *, lang: str | None = None
) -> str:
    """One student's feedback page in `lang` (default: the language the run was graded in); the
    problems the reader found are put into words in it (the checks' feedback stays the run's)."""
    lang = lang or result.lang
    lang = lang if lang in ("en", "zh") else "en"
    e = html.escape
    rows = []
    for test in result.tests:
        status = say("passed" if test.status == "passed" else "failed", lang)
        if test.hidden:
            shown = f"<em>{e(say('hidden', lang))}</em>"
        elif test.status == "passed":
            shown = ""
        else:
            shown = f"<pre>{e(test.output)}</pre>"
        rows.append(
            f"<tr><td>{e(test.exercise)}</td><td>{e(test.name)}</td>"
            f'<td class="{e(test.status)}">{e(status)}</td>'
            f"<td>{_points(test.score)}/{_points(test.max_score)}</td><td>{shown}</td></tr>"
        )
    problems = "".join(f"<li>{e(p)}</li>" for p in result.problems_in(lang))
    head = (
        f"<tr><th>{e(say('exercise', lang))}</th><th>{e(say('check', lang))}</th>"
        f"<th>{e(say('status', lang))}</th><th>{e(say('points', lang))}</th><th></th></tr>"
    )
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{e(TITLE[lang])}: {e(assignment_title)}</title><style>{STYLE}</style></head><body>\n"
        f"<h1>{e(assignment_title)}</h1>\n"
        f"<p>{e(say('student', lang))}: {e(result.student)}</p>\n"
        f"<p><strong>{e(say('score', lang))}: {_points(_final(result, late))}/{_points(result.max_score)}</strong></p>\n"
        + _lateness_rows(result, late, lang)
        + (f"<h2>{e(say('problems', lang))}</h2><ul>{problems}</ul>\n" if problems else "")
        + f"<table>{head}{''.join(rows)}</table>\n</body></html>\n"
    )


def feedback_files(
    results: Sequence[SubmissionResult],
    definition: Definition,
    title: str,
    lateness: dict[str, dict] | None = None,
    *,
    lang: str | None = None,
) -> dict[str, str]:
    """{file name: html} for every student with a run graded against `definition`, in `lang`
    (default: each run's own language); `lateness`: student -> the gradebook's latest lateness row
    of that definition."""
    mine = [r for r in results if r.assignment == definition.assignment and r.definition == definition.hash]
    late = lateness or {}
    return {
        file_name(r.student): render_one(r, title, late.get(r.student), lang=lang)
        for r in per_student(mine, definition)
    }
