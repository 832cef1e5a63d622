"""Write the class report: DIR/index.html (English), DIR/zh/index.html (Chinese), one page per
student in each language (DIR/students/, DIR/zh/students/), and DIR/assets/ (the course site's
style.css, report.css, report.js: a classic script, so the report works from file://).

The report is written to a temporary folder beside DIR and swapped in when complete; a DIR
that exists and was not written by this command is never replaced.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import jinja2

from grader.textsafe import display_name

from . import plots
from .classdata import ClassData
from .quizdata import QuizReport
from .text import HTML_LANG, UI

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
MARKER = ".coursegen-report"
LANGS = ("en", "zh")


class ReportError(Exception):
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


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, extensions=["jinja2.ext.do"])
    env.filters.update(name=display_name, percent=_percent, number=_number, points=_points)
    return env


def render_report(out: Path, *, data: ClassData, quizzes: list[QuizReport], course_title: dict[str, str],
                  gradebook_name: str) -> int:
    """Write the report into `out`; returns the number of files written."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise ReportError(f"{out}: exists and is not a report written by `coursegen report`; "
                          "choose a new folder or remove it")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        count = _write_all(staging, data, quizzes, course_title, gradebook_name)
        (staging / MARKER).write_text("written by coursegen report\n", encoding="utf-8")
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return count


def _swap_in(staging: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        out.rename(old)
    staging.rename(out)
    os.chmod(out, 0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _write_all(staging: Path, data: ClassData, quizzes: list[QuizReport], course_title: dict[str, str],
               gradebook_name: str) -> int:
    env = make_env()
    assets = staging / "assets"
    assets.mkdir()
    shutil.copyfile(TEMPLATES / "assets" / "style.css", assets / "style.css")
    for name in ("report.css", "report.js"):
        shutil.copyfile(TEMPLATES / "report" / "assets" / name, assets / name)
    figures = _figures(data)
    students = _student_rows(data)
    count = 3
    slugs = {s: student_slug(s) for s in data.students}
    for lang in LANGS:
        folder = staging if lang == "en" else staging / lang
        (folder / "students").mkdir(parents=True, exist_ok=True)
        common = dict(lang=lang, html_lang=HTML_LANG[lang], ui=UI[lang], course_title=course_title,
                      slugs=slugs, other_lang="zh" if lang == "en" else "en",
                      other_html_lang=HTML_LANG["zh" if lang == "en" else "en"])
        root = "" if lang == "en" else "../"
        other = "zh/index.html" if lang == "en" else "../index.html"
        page = env.get_template("report/index.html").render(
            **common, misconceptions=[m for m in data.misconceptions if m.attempted], assets=root + "assets/", here="", other_url=other, data=data, quizzes=quizzes,
            figures=figures, students=students, gradebook_name=gradebook_name,
            runs=sum(len(h) for h in data.history.values()))
        (folder / "index.html").write_text(page, encoding="utf-8")
        template = env.get_template("report/student.html")
        hints = {m.id: m.hint for m in data.misconceptions}
        for student in data.students:
            slug = slugs[student]
            other_page = f"../zh/students/{slug}.html" if lang == "en" else f"../../students/{slug}.html"
            latest = _latest_of(data, student)
            page = template.render(**common, assets=root + "../assets/", here="../", other_url=other_page,
                                   student=student, latest=latest, history=data.history[student], hints=hints)
            (folder / "students" / f"{slug}.html").write_text(page, encoding="utf-8")
            count += 1
        count += 1
    return count


def _latest_of(data: ClassData, student: str) -> list[dict]:
    index = getattr(data, "_latest_index", None)
    if index is None:
        index = {}
        for run in data.latest:
            index.setdefault(run["student"], []).append(run)
        data._latest_index = index   # type: ignore[attr-defined]
    return index.get(student, [])


def _figures(data: ClassData) -> dict[str, Any]:
    from coursegen.site import accessible_svg

    figures: dict[str, Any] = {"exercises": {}}
    for summary in data.exercises:
        figures["exercises"][summary.name] = accessible_svg(plots.score_distribution(summary.shares),
                                                            f"dist-{summary.name}", summary.name)
    shown = [m for m in data.misconceptions if m.count][:15]
    figures["misconceptions"] = accessible_svg(plots.shares_bar([m.id for m in shown], [m.share for m in shown]),
                                               "misconceptions", "misconceptions") if shown else ""
    return figures


def _student_rows(data: ClassData) -> list[dict]:
    rows: dict[str, dict] = {}
    for run in data.latest:
        row = rows.setdefault(run["student"], dict(student=run["student"], submissions=0, score=0.0, max=0.0,
                                                   mistakes=set(), kinds=set()))
        row["submissions"] += 1
        row["score"] += run["score"]
        row["max"] += run["max_score"]
        row["kinds"].update(run.get("problem_kinds") or [])
        for check in run["tests"]:
            row["mistakes"].update(check["mistakes"])
    out = []
    for student in sorted(rows):
        row = rows[student]
        row["share"] = row["score"] / row["max"] if row["max"] else 0.0
        row["mistakes"] = sorted(row["mistakes"])
        row["kinds"] = sorted(row["kinds"])
        out.append(row)
    return out
