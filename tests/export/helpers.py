"""Helpers of the export tests: a small course made from the repository's own exercises,
solutions and checks (copied, so the tests never depend on the real course's lessons)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LESSON_ID = "export-lesson"
LESSON_EXERCISES = ("encode", "pad_batch", "embedding_lookup", "embedding_backward", "TiedLM")  # a class too

COURSE_YAML = """\
id: export-course
title: {en: Export course, zh: 导出测试课程}
description: {en: A small course for the export tests., zh: 导出测试用的小课程。}
languages: [en, zh]
lessons: [export-lesson]
requires: ["torch>=2.2"]
submission: {route: gradescope}
"""


def _lesson_yaml(names: tuple[str, ...]) -> str:
    exercises = "".join(
        f"  - name: {name}\n    statement:\n      en: Implement `{name}`.\n      zh: 实现 `{name}`。\n"
        for name in names
    )
    return (
        textwrap.dedent("""\
        id: export-lesson
        title: {en: Tokens to vectors, zh: 从词元到向量}
        summary: {en: Ids and embedding tables., zh: 编号与嵌入表。}
        objectives:
          - {en: Encode tokens and look up embeddings., zh: 编码词元并查找嵌入。}
        sections:
          - id: basics
            title: {en: Basics, zh: 基础}
            blocks:
              - kind: text
                en: A token becomes an id, an id becomes a row of a table.
                zh: 词元变成编号，编号变成表中的一行。
        exercises:
        """)
        + exercises
    )


def make_course(dest: Path, exercises: tuple[str, ...] = LESSON_EXERCISES) -> Path:
    """A course root holding content/ for one lesson (with `exercises`) plus copies of the course's
    code the exports read (its exercises, solutions and checks; the grader itself is the engine's)."""
    for folder in ("grader/checks", "solutions", "exercises"):
        shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (dest / "content" / "lessons").mkdir(parents=True)
    shutil.copytree(
        REPO / "content" / "plugins",
        dest / "content" / "plugins",  # self-checks, figures, answers
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    (dest / "content" / "course.yaml").write_text(COURSE_YAML, encoding="utf-8")
    (dest / "content" / "lessons" / f"{LESSON_ID}.yaml").write_text(_lesson_yaml(exercises), encoding="utf-8")
    return dest


def with_exercise_cell(notebook: bytes, exercise: str, source: str) -> bytes:
    """The notebook with the exercise cell of `exercise` replaced by `source`."""
    import json

    data = json.loads(notebook)
    cells = [
        c
        for c in data["cells"]
        if c.get("metadata", {}).get("coursegen", {}).get("role") == "exercise"
        and c["metadata"]["coursegen"].get("exercise") == exercise
    ]
    assert len(cells) == 1, f"the notebook has {len(cells)} exercise cells for {exercise}"
    cells[0]["source"] = source
    return json.dumps(data).encode()
