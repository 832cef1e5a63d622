"""Output: each lesson's slide deck in every language, laid out and fitted in Chromium when a
browser is there (coursegen.slides.fit), one unit per lesson. Chromium is started for the first
deck that must be written and closed when the loop closes this generator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from grader.digests import digest_bytes

from . import BuildInputs, Unit


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..slides.fit import layout_available, layout_session, render_lesson_decks
    from ..slides.quiz import in_class_variants

    loaded, env = build.loaded, build.env
    decks = in_class_variants(loaded, list(loaded.lessons), env.globals.get("cache_dir") or loaded.cache_dir)
    laid_out = "layout checked" if layout_available() else "layout not checked"
    evidence = env.globals.get("claim_evidence", {}) or {}

    def deck_key(lesson) -> str:  # a deck also shows its lesson's quiz (in-class variant) and results
        quiz_file = loaded.quiz_files.get(lesson.id)
        quiz = Path(quiz_file).read_bytes() if quiz_file and Path(quiz_file).is_file() else b""
        results = repr(sorted((k, repr(v)) for k, v in evidence.items() if k[0] == lesson.id))
        return digest_bytes(
            build.lesson_key(lesson), quiz, json.dumps(decks.get(lesson.id), sort_keys=True), laid_out, results
        )

    with layout_session() as checker:
        for lesson in loaded.lessons:

            def deck(out: Path, lesson=lesson) -> None:
                # measured beside the site's own decks, where the assets written before resolve
                render_lesson_decks(loaded, lesson, out, env, decks.get(lesson.id), checker, site=build.staging)

            yield Unit(f"slides:{lesson.id}", deck_key(lesson), deck)
