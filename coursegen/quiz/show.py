"""A variant as plain text (what `coursegen quiz show` prints), and roster files.

The text shows what the student must answer and how (letters for options, the shape
format); with `answers=True` it also shows the answer key, for the instructor.
"""

from __future__ import annotations

import csv
from pathlib import Path

from coursegen.errors import ContentError, Location

from .kinds import kind_of


def answer_key(item: dict) -> str:
    return kind_of(item["type"]).answer_key(item)


def render_text(variant: dict, lang: str = "en", answers: bool = False) -> str:
    head = "Student" if lang == "en" else "学生"
    unit = "pt" if lang == "en" else "分"
    lines = [f"# {variant['title'][lang]} ({variant['quiz']})", f"{head}: {variant['student']}", ""]
    for number, item in enumerate(variant["questions"], 1):
        lines.append(f"{number}. [{item['id']}] ({item['points']} {unit}) {item['text'][lang].strip()}")
        kind = kind_of(item["type"])
        lines += kind.show_lines(item, lang)
        lines.append(f"   ({kind.how[lang]})")
        if answers:
            lines.append(f"   => {answer_key(item)}")
        lines.append("")
    return "\n".join(lines)


def read_roster(path: str | Path) -> list[str]:
    """Student ids from a roster: a CSV with a `student` (or `id`) column, or a YAML list
    (of ids, or of mappings with `student`/`id`), read through coursegen.yamlio."""
    path = Path(path)
    if path.suffix in (".yaml", ".yml"):
        from coursegen.yamlio import read_yaml

        doc = read_yaml(path)
        data = doc.data.get("students") if isinstance(doc.data, dict) else doc.data
        if not isinstance(data, list):
            raise ContentError(doc.location(()), "a YAML roster is a list of student ids (or 'students: [...]')")
        ids = []
        for index, entry in enumerate(data):
            value = entry.get("student", entry.get("id")) if isinstance(entry, dict) else entry
            if not isinstance(value, (str, int)) or not str(value).strip():
                raise ContentError(
                    doc.location(("students", index) if isinstance(doc.data, dict) else (index,)),
                    "expected a student id",
                )
            ids.append(str(value).strip())
    else:
        try:
            rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
        except FileNotFoundError:
            raise ContentError(Location(str(path)), "file not found") from None
        fields = rows[0].keys() if rows else []
        column = "student" if "student" in fields else "id" if "id" in fields else None
        if column is None:
            raise ContentError(
                Location(str(path), 1, 1), "a CSV roster needs a 'student' (or 'id') column in its header"
            )
        ids = []
        for line, row in enumerate(rows, 2):
            value = (row[column] or "").strip()
            if not value:
                raise ContentError(Location(str(path), line, 1), f"empty '{column}'")
            ids.append(value)
    if not ids:
        raise ContentError(Location(str(path)), "the roster lists no student")
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ContentError(Location(str(path)), f"student '{duplicates[0]}' is listed twice")
    return ids
