"""The lesson's quiz as in-class questions: the IN_CLASS variant of every quiz, cached.

The variant is made in a child process (coursegen.quiz.child, the quiz pages' own) on a cache miss
and kept in `.coursegen-cache/slides/`, keyed like the quiz pages' cache (the quiz file, what a
variant reads of the lesson, course.yaml, the quiz engine with its child, the course's plugins,
the reference solutions and mistakes, the torch version), so a no-change build, or a prose edit
of a lesson, starts no process.
"""

from __future__ import annotations

from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location
from coursegen.quiz.child import variants_in_child
from coursegen.quiz.site import in_class_key, in_class_shared_key


def in_class_variants(loaded, lessons: list, cache_dir: Path | None = None) -> dict[str, dict]:
    """{lesson id: the IN_CLASS variant of its quiz} for the lessons that have a quiz file."""
    from coursegen.cache import Cache

    root = Path(loaded.root)
    store = Cache(cache_dir or root / ".coursegen-cache")
    variants: dict[str, dict] = {}
    missing: dict[str, str] = {}
    shared = in_class_shared_key(loaded)
    for lesson in lessons:
        if lesson.quiz is None or lesson.id not in loaded.quiz_files:
            continue
        key = in_class_key(loaded, lesson, shared)
        found = store.get("slides", key)
        if isinstance(found, dict):
            variants[lesson.id] = found
        else:
            missing[lesson.id] = key
    if not missing:
        return variants
    from coursegen.quiz.variants import IN_CLASS

    results = variants_in_child([IN_CLASS], root, list(missing))[IN_CLASS]
    errors = [
        ContentError(Location(f, line, column), message)
        for result in results.values()
        for f, line, column, message in result["errors"]
    ]
    if errors:
        raise ContentErrors(errors)
    for lesson_id, key in missing.items():
        variants[lesson_id] = store.value("slides", key, lambda: results[lesson_id]["variant"], reuse=False)
    return variants
