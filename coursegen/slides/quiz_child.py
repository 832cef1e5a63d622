"""The in-class variant of each quiz, computed in a child process (generated answers call the
reference solutions, which import torch; the build process never does):

    python -m coursegen.slides.quiz_child ROOT LESSON_ID...

prints one JSON object {lesson id: {"errors": [[file, line, column, message], ...], "variant": {...} or
null}}. The quiz gate itself runs in the quiz pages' child (coursegen.quiz.child); this one only
makes the variant every deck shows: the student id IN_CLASS, so the numbers are the same in every
build and differ from the practice page's.
"""

from __future__ import annotations

import json
import sys

IN_CLASS = "in-class"


def compute(root: str, lesson_ids: list[str]) -> dict:
    from coursegen.errors import ContentError, ContentErrors
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant

    def rows(errors) -> list:
        return [[e.location.file, e.location.line, e.location.column, e.message] for e in errors]

    try:
        quizzes = course_quizzes(root, lesson_ids)
    except ContentErrors as exc:
        return {"*": {"errors": rows(exc.errors), "variant": None}}
    except ContentError as exc:
        return {"*": {"errors": rows([exc]), "variant": None}}
    out: dict[str, dict] = {}
    for loaded in quizzes:
        key = loaded.quiz.lesson if loaded.lesson is None else loaded.lesson.id
        try:
            out[key] = {"errors": [], "variant": make_variant(loaded, IN_CLASS)}
        except ContentError as exc:
            out[key] = {"errors": rows([exc]), "variant": None}
    return out


if __name__ == "__main__":
    print(json.dumps(compute(sys.argv[1], sys.argv[2:]), ensure_ascii=False, sort_keys=True))
