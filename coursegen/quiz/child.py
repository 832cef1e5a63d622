"""Run the quiz quality gate and build the practice variants in a child process.

The build process never imports torch (docs/architecture.md), but generated answers call the
reference solutions, which do. coursegen.quiz.site therefore runs

    python -m coursegen.quiz.child ROOT LESSON_ID...

which prints one JSON object: {lesson id: {"errors": [[file, line, column, message], ...],
"variant": {...} or null}}. A crash prints a traceback on stderr and exits non-zero.
"""

from __future__ import annotations

import json
import sys


def compute(root: str, lesson_ids: list[str]) -> dict:
    from coursegen.errors import ContentError, ContentErrors

    from .gate import verify_quiz
    from .load import course_quizzes
    from .variants import PRACTICE, make_variant

    def rows(errors) -> list:
        return [[e.location.file, e.location.line, e.location.column, e.message] for e in errors]

    try:
        quizzes = course_quizzes(root, lesson_ids)
    except ContentErrors as exc:
        return {"*": {"errors": rows(exc.errors), "variant": None}}
    except ContentError as exc:
        return {"*": {"errors": rows([exc]), "variant": None}}
    out = {}
    for loaded in quizzes:
        errors = verify_quiz(loaded)
        variant = None
        if not errors:
            try:
                variant = make_variant(loaded, PRACTICE)
            except ContentError as exc:
                errors = [exc]
        out[loaded.quiz.lesson if loaded.lesson is None else loaded.lesson.id] = {
            "errors": rows(errors),
            "variant": variant,
        }
    return out


if __name__ == "__main__":
    print(json.dumps(compute(sys.argv[1], sys.argv[2:]), ensure_ascii=False, sort_keys=True))
