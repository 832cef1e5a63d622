"""Output: assets/search-index.js, one unit assembled from per-lesson fragments (one per lesson and
language, cached values of kind "search-fragment"): a prose edit recomputes only its lesson's."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from grader.digests import digest_bytes

from . import BuildInputs, Unit


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..search import lesson_entries, write_search_index_entries

    loaded = build.loaded
    fragments = []
    for lang in loaded.course.languages:
        for lesson in loaded.lessons:
            quiz_file = loaded.quiz_files.get(lesson.id)  # the quiz's title is in the index
            quiz = Path(quiz_file).read_bytes() if quiz_file and Path(quiz_file).is_file() else b""
            fragments.append((lang, lesson, digest_bytes(build.lesson_key(lesson), lang, quiz)))

    def write(out: Path) -> None:
        entries: list[dict[str, str]] = []
        for lang, lesson, key in fragments:
            entries += build.cache.value(
                "search-fragment", key, lambda: lesson_entries(loaded, lesson, lang), reuse=build.reuse
            )
        write_search_index_entries(entries, out)

    yield Unit("search-index", digest_bytes(build.site_key, *(key for *_, key in fragments)), write)
