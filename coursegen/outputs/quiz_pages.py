"""Output: each lesson's quiz page (its practice variant, after the quality gate) in every
language, one unit per lesson with a quiz. The variants are cached values (coursegen.quiz.site)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from grader.digests import digest_bytes

from . import BuildInputs, Unit


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..quiz.site import checked_practice_variants, quiz_lessons, write_lesson_quiz_pages

    loaded, env = build.loaded, build.env
    lessons = quiz_lessons(loaded)
    variants = checked_practice_variants(loaded, lessons, env.globals.get("cache_dir"))
    for lesson in lessons:
        variant = variants[lesson.id]

        def write(out: Path, lesson=lesson, variant=variant) -> None:
            write_lesson_quiz_pages(loaded, lesson, variant, out, env)

        key = digest_bytes(build.lesson_key(lesson), json.dumps(variant, sort_keys=True))
        yield Unit(f"quiz-pages:{lesson.id}", key, write)
