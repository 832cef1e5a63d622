"""Output: the course pages (root index; per language index, glossary, exercises, search), one
unit that lists every lesson; then each lesson's page in every language, one unit per lesson."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from . import BuildInputs, Unit


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..site import write_course_pages, write_lesson_page

    loaded, env = build.loaded, build.env
    yield Unit("course-pages", build.every_lesson_key, lambda out: write_course_pages(loaded, out, env))
    for lesson in loaded.lessons:

        def lesson_pages(out: Path, lesson=lesson) -> None:
            for lang in loaded.course.languages:
                write_lesson_page(loaded, lesson, lang, out / lang, env)

        yield Unit(f"lesson-pages:{lesson.id}", build.lesson_key(lesson), lesson_pages)
