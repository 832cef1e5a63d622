"""Write the class report: DIR/index.html (English), DIR/zh/index.html (Chinese), the student
drill-down DIR/student.html#<id> (and zh/student.html#<id>), drawn by report.js from the one data
file DIR/students.js (2,000 students stay well under 10 MB), and DIR/assets/ (the course site's
style.css, report.css, report.js). Scripts are classic and data is loaded with <script> tags,
so the report works from file:// (no modules, no fetch).

The report is written to a temporary folder beside DIR and swapped in when complete; a DIR
that exists and was not written by this command is never replaced.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from grader.atomic import staged_folder
from grader.feedback import Problem, Said
from grader.textsafe import display_name

from . import plots
from .classdata import ClassData
from .quizdata import QuizReport
from .text import HTML_LANG, UI
from grader.errors import CoursegenError

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
MARKER = ".coursegen-report"
LANGS = ("en", "zh")


class ReportError(CoursegenError):
    """The report cannot be written (an unsafe output folder, unreadable input)."""


def student_slug(student: str) -> str:
    """A file name for a student id (which the student may control): safe characters and a hash."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", student).strip(".-")[:32] or "student"
    return f"{safe}-{hashlib.sha256(student.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


def _percent(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{100 * value:.{digits}f}%"


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _points(value: float) -> str:
    return f"{value:g}"


def _markdown_inline(source: str) -> Markup:
    """Course text (a quiz question: trusted content, not student input) with its math as MathML."""
    from coursegen.markdown import render_inline

    return Markup(render_inline(source or ""))


def _late_by_filter(row: dict, lang: str) -> str:
    from grader.reporting.lateness import late_by_text

    return late_by_text(row.get("late_by"), lang, late_marked=bool(row.get("late_marked")))


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do"],
    )
    env.filters.update(name=display_name, percent=_percent, number=_number, points=_points, md_inline=_markdown_inline)
    env.filters["tuple"] = tuple
    env.filters["late_by"] = _late_by_filter
    return env


def render_report(
    out: Path, *, data: ClassData, quizzes: list[QuizReport], course_title: dict[str, str], gradebook_name: str
) -> int:
    """Write the report into `out`; returns the number of files written."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise ReportError(
            f"{out}: exists and is not a report written by `coursegen report`; choose a new folder or remove it"
        )
    with staged_folder(out, label="report") as staging:
        count = _write_all(staging, data, quizzes, course_title, gradebook_name)
        (staging / MARKER).write_text("written by coursegen report\n", encoding="utf-8")
    return count


def _write_all(
    staging: Path, data: ClassData, quizzes: list[QuizReport], course_title: dict[str, str], gradebook_name: str
) -> int:
    env = make_env()
    assets = staging / "assets"
    assets.mkdir()
    shutil.copyfile(TEMPLATES / "assets" / "style.css", assets / "style.css")
    # the math font style.css names (the report shows no formula yet; a missing font is a console error)
    shutil.copytree(TEMPLATES / "assets" / "vendor" / "noto-sans-math", assets / "vendor" / "noto-sans-math")
    for name in ("report.css", "report.js"):
        shutil.copyfile(TEMPLATES / "report" / "assets" / name, assets / name)
    figures = _figures(data)
    students = _student_rows(data)
    slugs = {s: student_slug(s) for s in data.students}
    (staging / "students.js").write_text(_students_script(data, slugs), encoding="utf-8")
    count = 4
    for lang in LANGS:
        folder = staging if lang == "en" else staging / lang
        folder.mkdir(exist_ok=True)
        other_lang = "zh" if lang == "en" else "en"
        common = dict(
            lang=lang,
            html_lang=HTML_LANG[lang],
            ui=UI[lang],
            course_title=course_title,
            slugs=slugs,
            other_html_lang=HTML_LANG[other_lang],
        )
        root = "" if lang == "en" else "../"
        other = "zh/" if lang == "en" else "../"
        page = env.get_template("report/index.html").render(
            **common,
            misconceptions=[m for m in data.misconceptions if m.attempted],
            assets=root + "assets/",
            up=root,  # links to folders beside the report (--similarity, --proposals) are relative to DIR
            here="",
            other_url=other + "index.html",
            data=data,
            quizzes=quizzes,
            figures=figures,
            students=students,
            gradebook_name=gradebook_name,
            runs=sum(len(h) for h in data.history.values()),
        )
        (folder / "index.html").write_text(page, encoding="utf-8")
        page = env.get_template("report/student.html").render(
            **common,
            assets=root + "assets/",
            here="",
            other_url=other + "student.html",
            data_script=root + "students.js",
            ui_json=_script_json({key: UI[lang][key] for key in STUDENT_UI}),
        )
        (folder / "student.html").write_text(page, encoding="utf-8")
        count += 2
    return count


STUDENT_UI = (
    "exercise",
    "check",
    "status",
    "points",
    "matched_mistakes",
    "problem",
    "hidden",
    "status_passed",
    "status_failed",
    "latest",
    "history",
    "graded_at",
    "submission",
    "score",
    "sha",
    "none",
    "unknown_student",
    "back",
)


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no "</script>", no "<!--", no line separators."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _in_every_language(problem: Problem) -> str | dict[str, str]:
    """A run's problem for students.js: a kept message kind in the words of every language of the
    report (report.js shows the page's), a sentence an older run stored as it is."""
    if isinstance(problem, Said):
        return {lang: display_name(problem.text(lang)) for lang in LANGS}
    return display_name(problem)


def _students_script(data: ClassData, slugs: dict[str, str]) -> str:
    """students.js: every student's latest runs and history as compact data (exercises and checks
    by index), loaded by student.html with a classic <script> (works from file://)."""
    exercises: dict[str, int] = {}
    checks: dict[str, int] = {}
    students: dict[str, Any] = {}
    latest_by: dict[str, list[dict]] = {}
    for run in data.latest:
        latest_by.setdefault(run["student"], []).append(run)
    for student in data.students:
        latest = []
        for run in latest_by.get(student, []):
            rows = [
                [
                    checks.setdefault(c["name"], len(checks)),
                    exercises.setdefault(c["exercise"], len(exercises)),
                    c["score"],
                    c["max_score"],
                    int(c["status"] == "passed"),
                    int(c["hidden"]),
                    c["mistakes"],
                    c["problem"],
                ]
                for c in run["tests"]
            ]
            latest.append(
                [
                    display_name(run["submission"]),
                    run["score"],
                    run["max_score"],
                    run["graded_at"],
                    [_in_every_language(p) for p in run["problems"]],
                    rows,
                ]
            )
        history = [
            [run["graded_at"], display_name(run["submission"]), run["score"], run["max_score"], run["sha256"][:12]]
            for run in data.history[student]
        ]
        students[slugs[student]] = {"name": display_name(student), "latest": latest, "history": history}
    payload = {
        "exercises": list(exercises),
        "checks": list(checks),
        "students": students,
        "hints": {m.id: m.hint for m in data.misconceptions},
    }
    return "window.COURSEGEN_REPORT = " + _script_json(payload) + ";\n"


def _figures(data: ClassData) -> dict[str, Any]:
    from coursegen.pages import accessible_svg

    figures: dict[str, Any] = {"exercises": {}}
    for summary in data.exercises:
        figures["exercises"][summary.name] = accessible_svg(
            plots.score_distribution(summary.shares), f"dist-{summary.name}", summary.name
        )
    shown = [m for m in data.misconceptions if m.count][:15]
    figures["misconceptions"] = (
        accessible_svg(
            plots.shares_bar([m.id for m in shown], [m.share for m in shown]), "misconceptions", "misconceptions"
        )
        if shown
        else ""
    )
    return figures


def _add_lateness(row: dict, late: dict | None) -> None:
    """An assignment's row with lateness recorded: `raw` (the checks' score), `late_by` (seconds or
    None), `late_marked`, `penalty`, and `score` becomes the final score (raw - penalty)."""
    from grader.reporting.lms_export import late_terms

    terms = late_terms(row["score"], late)
    row["raw"], row["penalty"] = terms["raw"], terms["penalty"]
    row["late_by"] = late["late_by"] if late is not None else None
    row["late_marked"] = bool(late["late_marked"]) if late is not None else False
    row["score"] = terms["final"]


def _student_rows(data: ClassData) -> list[dict]:
    rows: dict[str, dict] = {}
    for run in data.latest:
        row = rows.setdefault(
            run["student"], dict(student=run["student"], submissions=0, score=0.0, max=0.0, mistakes=set(), kinds=set())
        )
        row["submissions"] += 1
        row["score"] += run["score"]
        row["max"] += run["max_score"]
        row["kinds"].update(run.get("problem_kinds") or [])
        for check in run["tests"]:
            row["mistakes"].update(check["mistakes"])
    if data.definition is not None:  # one assignment: each exercise's best file, out of its maximum
        for student, row in rows.items():
            best: dict[str, float] = {}
            for run in data.latest:
                if run["student"] != student:
                    continue
                for name in data.definition.names:
                    earned = sum(c["score"] for c in run["tests"] if c["exercise"] == name)
                    best[name] = max(best.get(name, 0.0), earned)
            row["score"], row["max"] = sum(best.values()), data.definition.max_score
    out = []
    for student in sorted(rows):
        row = rows[student]
        _add_lateness(row, data.lateness.get(student) if data.definition is not None else None)
        row["share"] = row["score"] / row["max"] if row["max"] else 0.0
        row["mistakes"] = sorted(row["mistakes"])
        row["kinds"] = sorted(row["kinds"])
        out.append(row)
    return out
