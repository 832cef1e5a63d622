"""The lesson's quiz as in-class questions: the IN_CLASS variant of every quiz, cached.

The variant is made in a child process (coursegen.slides.quiz_child) on a cache miss and kept in
`.coursegen-cache/slides/`, keyed like the quiz pages' cache (the quiz and lesson files,
course.yaml, the quiz engine, the course's plugins, the reference solutions and mistakes, the
torch version) plus the child's own code, so a no-change build starts no process.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location

CHILD = Path(__file__).resolve().parent / "quiz_child.py"


def cache_file(loaded, lesson, cache_dir: Path, shared: str | None = None) -> Path:
    """Where the lesson's in-class variant is cached. `shared`: the part of the key every lesson
    has in common (`shared_key(loaded)`), computed once per build."""
    shared = shared_key(loaded) if shared is None else shared
    digest = hashlib.sha256(shared.encode() + b"\0" + CHILD.read_bytes())
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
    results = _run_child(root, list(missing))
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


def _run_child(root: Path, lesson_ids: list[str]) -> dict:
    engine = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), engine, os.environ.get("PYTHONPATH", "")])),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "coursegen.slides.quiz_child", str(root), *lesson_ids],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"the in-class quiz variants could not be made:\n{completed.stderr.strip()}")
    return json.loads(completed.stdout)
