"""A variant as plain text (what `coursegen quiz show` prints), and roster files.

The text shows what the student must answer and how (letters for options, the shape
format); with `answers=True` it also shows the answer key, for the instructor.
"""

from __future__ import annotations

import csv
from pathlib import Path

from coursegen.errors import ContentError, Location

from .grade import LETTERS

HOW = {
    "single": {"en": "Answer with one letter.", "zh": "用一个字母作答。"},
    "multiple": {"en": 'Answer with every right letter, e.g. "A, C".', "zh": '写出所有正确选项的字母，例如 "A, C"。'},
    "true_false": {"en": "Answer A (true) or B (false).", "zh": "回答 A（正确）或 B（错误）。"},
    "numeric": {"en": "Answer with a number.", "zh": "用一个数作答。"},
    "shape": {"en": "Answer with a shape, e.g. [2, 3, 4].", "zh": "写出形状，例如 [2, 3, 4]。"},
    "short": {"en": "Answer with a word or a short phrase.", "zh": "用一个词或短语作答。"},
    "matching": {
        "en": 'For each numbered item in order, give the letter of its match, e.g. "B, A, C".',
        "zh": '按编号顺序写出每一项对应的字母，例如 "B, A, C"。',
    },
}


def answer_key(item: dict) -> str:
    kind = item["type"]
    if kind in ("single", "multiple", "true_false"):
        return ", ".join(LETTERS[n] for n, o in enumerate(item["options"]) if o["correct"])
    if kind == "short":
        return " | ".join(item["accepted"])
    if kind == "matching":
        return ", ".join(LETTERS[c] for c in item["answer"])
    return str(item["display"])


def render_text(variant: dict, lang: str = "en", answers: bool = False) -> str:
    head = "Student" if lang == "en" else "学生"
    unit = "pt" if lang == "en" else "分"
    lines = [f"# {variant['title'][lang]} ({variant['quiz']})", f"{head}: {variant['student']}", ""]
    for number, item in enumerate(variant["questions"], 1):
        lines.append(f"{number}. [{item['id']}] ({item['points']} {unit}) {item['text'][lang].strip()}")
        if item["type"] in ("single", "multiple", "true_false"):
            lines += [f"   {LETTERS[n]}. {o['text'][lang]}" for n, o in enumerate(item["options"])]
        if item["type"] == "matching":
            lines += [f"   {k + 1}. {p['left'][lang]}" for k, p in enumerate(item["pairs"])]
            lines += [f"   {LETTERS[c]}. {choice[lang]}" for c, choice in enumerate(item["choices"])]
        lines.append(f"   ({HOW[item['type']][lang]})")
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
