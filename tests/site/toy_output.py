"""A toy build output for tests/site/test_incremental_build.py: one module that yields one unit per
lesson (`toy/<lesson>.txt`, the lesson's first text block), as an output of coursegen/outputs does."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from coursegen.outputs import BuildInputs, Unit
from coursegen.schema import TextBlock

WRITTEN: list[str] = []  # the lessons whose unit was written (not copied from the cache)


def units(build: BuildInputs) -> Iterator[Unit]:
    for lesson in build.loaded.lessons:

        def write(out: Path, lesson=lesson) -> None:
            WRITTEN.append(lesson.id)
            texts = [
                block.en for section in lesson.sections for block in section.blocks if isinstance(block, TextBlock)
            ]
            (out / "toy").mkdir(parents=True, exist_ok=True)
            (out / "toy" / f"{lesson.id}.txt").write_text(f"{lesson.id}: {texts[0]}\n", encoding="utf-8")

        yield Unit(f"toy:{lesson.id}", build.lesson_key(lesson), write)
