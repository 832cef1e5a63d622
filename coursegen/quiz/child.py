"""The quiz variants the site shows, computed in a child process.

The build process never imports torch (docs/architecture.md), but generated answers call the
reference solutions, which do. The quiz pages (coursegen.quiz.site) and the slide decks
(coursegen.slides.quiz) therefore call `variants_in_child`, which runs

    python -m coursegen.quiz.child STUDENT[,STUDENT...] ROOT LESSON_ID...

and reads the one JSON object it prints: {student: {lesson id: {"errors": [[file, line, column,
message], ...], "variant": {...} or null}}}. A STUDENT is a variant's student id: `practice`
(PRACTICE, the quiz pages' variant: the quiz quality gate runs first, and a quiz that fails it gets
no variant) or `in-class` (IN_CLASS, the decks' variant, whose quiz the same build's quiz pages
gate). One child makes both on a cold build (the quiz pages ask for the decks' variant too), so
torch is imported once. A crash prints a traceback on stderr and exits non-zero.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def compute(students: list[str], root: str, lesson_ids: list[str]) -> dict:
    """In the child: {student: {lesson id: {"errors": rows, "variant": that student's variant or None}}}."""
    from coursegen.errors import ContentError, ContentErrors

    from .gate import verify_quiz
    from .load import course_quizzes
    from .variants import PRACTICE, make_variant

    def rows(errors) -> list:
        return [[e.location.file, e.location.line, e.location.column, e.message] for e in errors]

    try:
        quizzes = course_quizzes(root, lesson_ids)
    except ContentErrors as exc:
        return {student: {"*": {"errors": rows(exc.errors), "variant": None}} for student in students}
    except ContentError as exc:
        return {student: {"*": {"errors": rows([exc]), "variant": None}} for student in students}
    out: dict[str, dict] = {student: {} for student in students}
    for loaded in quizzes:
        lesson_id = loaded.quiz.lesson if loaded.lesson is None else loaded.lesson.id
        for student in students:
            errors = verify_quiz(loaded) if student == PRACTICE else []
            variant = None
            if not errors:
                try:
                    variant = make_variant(loaded, student)
                except ContentError as exc:
                    errors = [exc]
            out[student][lesson_id] = {"errors": rows(errors), "variant": variant}
    return out


def variants_in_child(students: list[str], root: Path, lesson_ids: list[str]) -> dict:
    """In the build: what `compute(students, root, lesson_ids)` returns, computed in a child process
    (the course root and this engine first on its sys.path). RuntimeError when the child crashed."""
    engine = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), engine, os.environ.get("PYTHONPATH", "")])),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "coursegen.quiz.child", ",".join(students), str(root), *lesson_ids],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"the quiz variants ({', '.join(students)}) could not be made:\n{completed.stderr.strip()}")
    return json.loads(completed.stdout)


if __name__ == "__main__":
    print(json.dumps(compute(sys.argv[1].split(","), sys.argv[2], sys.argv[3:]), ensure_ascii=False, sort_keys=True))
