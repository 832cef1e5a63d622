"""The build's slide-deck output: every lesson's deck in every course language, laid out and
fitted in Chromium (coursegen.slides.fit) when a browser is there. Apart from coursegen.slides.deck,
which renders one deck and is imported by the fitting it is checked with."""

from __future__ import annotations

from pathlib import Path


def write_decks(loaded, staging: Path, env) -> None:
    """Registered in coursegen.build.OUTPUT_WRITERS: every lesson's deck in every course language,
    each laid out and fitted in Chromium (coursegen.slides.fit) when a browser is there."""
    from .fit import layout_session, render_lesson_decks
    from .quiz import in_class_variants

    variants = in_class_variants(loaded, list(loaded.lessons), env.globals.get("cache_dir") or loaded.cache_dir)
    with layout_session() as checker:
        for lesson in loaded.lessons:
            render_lesson_decks(loaded, lesson, staging, env, variants.get(lesson.id), checker)
