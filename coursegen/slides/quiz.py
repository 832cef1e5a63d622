"""The lesson's quiz as in-class questions: the IN_CLASS variant of every quiz, cached.

The variant is made in a child process (coursegen.quiz.child, the quiz pages' own) on a cache miss
and kept in `.coursegen-cache/slides/`, keyed like the quiz pages' cache (the quiz and lesson files,
course.yaml, the quiz engine with its child, the course's plugins, the reference solutions and
mistakes, the torch version), so a no-change build starts no process.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location
from coursegen.quiz.child import variants_in_child


def cache_file(loaded, lesson, cache_dir: Path, shared: str | None = None) -> Path:
    """Where the lesson's in-class variant is cached. `shared`: the part of the key every lesson
    has in common (`shared_key(loaded)`), computed once per build."""
    shared = shared_key(loaded) if shared is None else shared
    digest = hashlib.sha256(shared.encode())
    for path in (loaded.quiz_files[lesson.id], loaded.lesson_files[lesson.id], loaded.course_file):
        digest.update(b"\0" + Path(path).read_bytes())
    return Path(cache_dir) / "slides" / f"quiz-{lesson.quiz}-{digest.hexdigest()[:24]}.json"


def shared_key(loaded) -> str:
    """The quiz pages' cache key without files of its own: the quiz engine, the course's plugins,
    the reference solutions and mistakes, the torch version."""
    from coursegen.quiz.site import _cache_key

    return _cache_key(Path(loaded.root), [])


def in_class_variants(loaded, lessons: list, cache_dir: Path | None = None) -> dict[str, dict]:
    """{lesson id: the IN_CLASS variant of its quiz} for the lessons that have a quiz file."""
    root = Path(loaded.root)
    cache_dir = Path(cache_dir or root / ".coursegen-cache")
    variants: dict[str, dict] = {}
    missing: dict[str, Path] = {}
    shared = shared_key(loaded)
    for lesson in lessons:
        if lesson.quiz is None or lesson.id not in loaded.quiz_files:
            continue
        path = cache_file(loaded, lesson, cache_dir, shared)
        if path.is_file():
            variants[lesson.id] = json.loads(path.read_text(encoding="utf-8"))
        else:
            missing[lesson.id] = path
    if not missing:
        return variants
    from coursegen.quiz.variants import IN_CLASS

    results = variants_in_child(IN_CLASS, root, list(missing))
    errors = [
        ContentError(Location(f, line, column), message)
        for result in results.values()
        for f, line, column, message in result["errors"]
    ]
    if errors:
        raise ContentErrors(errors)
    from grader.atomic import write_atomically

    for lesson_id, path in missing.items():
        variant = results[lesson_id]["variant"]
        write_atomically(path, json.dumps(variant, ensure_ascii=False, sort_keys=True))
        variants[lesson_id] = variant
    return variants
