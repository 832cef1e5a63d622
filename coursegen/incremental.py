"""Incremental build: each output *unit* is reused while the hash of its inputs is unchanged.

A unit is a named group of files one writer writes (a lesson's pages, its notebooks, its quiz
pages, its slide deck; the course-wide pages; the assets). Its key is the SHA-256 of
everything the files are made from:

    site key (every unit)   the engine (coursegen's and grader's source, their templates), the
                            libraries that render (Jinja2, markdown-it, Pygments, nbformat, ...),
                            the course's templates/, content/plugins/, exercises/, solutions/,
                            grader/checks/ (points), content/course.yaml as loaded, and every
                            lesson's id and title (the navigation on every page)
    a lesson's units        + that lesson as loaded (every field), its example outputs and figures
                            (+ the practice variant, for its quiz pages; + its quiz file and
                            in-class variant, for its slide decks)
    course-wide pages       + every lesson as loaded (index, glossary, exercises list and search
                            pages list or link every lesson; a course's own templates may show more)

A reused unit's files are copied from `.coursegen-cache/site/` into the staging folder; a unit
that must be written is written into a folder of its own, then copied into the staging folder
and (atomically) into the cache. So an incremental build writes exactly the bytes a cold build
writes (tests/site/test_incremental_build.py proves it for each kind of edit). The search index
is assembled from per-lesson fragments kept in the same cache (coursegen.search).

Writers of `coursegen.build.OUTPUT_WRITERS` that this module does not know run whole on every
build; a per-lesson writer joins the scheme by being listed in `coursegen.build.LESSON_WRITERS`
(called as `writer(loaded, lesson, staging_dir, env)`, writing that lesson's files only).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from grader.atomic import write_atomically
from grader.digests import digest_bytes, digest_tree, engine_digest

FORMAT = "1"
RENDER_LIBRARIES = (
    "jinja2",
    "markdown-it-py",
    "mdit-py-plugins",
    "latex2mathml",
    "Pygments",
    "nbformat",
    "pydantic",
    "ruamel.yaml",
    "matplotlib",
)


def _versions() -> str:
    parts = []
    for name in RENDER_LIBRARIES:
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=absent")
    return ";".join(parts)


def lesson_digest(loaded, lesson, env) -> str:
    """A lesson as loaded (every field), with its example outputs and figures."""
    outputs = env.globals.get("example_outputs", {})
    svgs = env.globals.get("figure_svgs", {})
    mine = lambda table: sorted((block, text) for (lesson_id, block), text in table.items() if lesson_id == lesson.id)  # noqa: E731
    return digest_bytes(
        lesson.model_dump_json(),
        json.dumps([mine(outputs), mine(svgs)], ensure_ascii=False),
        Path(loaded.lesson_files.get(lesson.id, "")).name,
    )


def assets_digest(loaded) -> str:
    """The assets (stylesheets, scripts, the Pygments stylesheet): the engine's and the course's
    templates folders and the libraries."""
    return digest_bytes(FORMAT, engine_digest(), _versions(), digest_tree(Path(loaded.root) / "templates"))


def site_digest(loaded, env) -> str:
    root = Path(loaded.root)
    nav = [(lesson.id, lesson.title.model_dump_json()) for lesson in loaded.lessons]
    return digest_bytes(
        FORMAT,
        engine_digest(),
        _versions(),
        *(digest_tree(root / folder) for folder in ("templates", "content/plugins", "exercises", "solutions")),
        digest_tree(root / "grader" / "checks"),
        loaded.course.model_dump_json(),
        json.dumps(nav, ensure_ascii=False),
        repr(sorted((k, v) for k, v in env.globals.items() if isinstance(v, (bool, int, str)) and k != "cache_dir")),
    )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "unit"


class OutputCache:
    """The files of each unit of the last build, under `folder` (`<unit>/entry.json` + `<unit>/files/`)."""

    def __init__(self, folder: Path | str, *, enabled: bool = True) -> None:
        self.folder = Path(folder)
        self.enabled = enabled
        self.reused: list[str] = []
        self.written: list[str] = []

    def unit(self, staging: Path, name: str, key: str, write: Callable[[Path], Any]) -> None:
        """Put the unit's files into `staging`: from the cache when its key is unchanged, else by
        `write(folder)` into a folder of its own (then kept in the cache for the next build)."""
        staging = Path(staging)
        entry = self.folder / _slug(name)
        if self.enabled and self._copy_cached(entry, key, staging):
            self.reused.append(name)
            return
        self.written.append(name)
        with tempfile.TemporaryDirectory(prefix=".unit-", dir=staging.parent) as scratch:
            out = Path(scratch) / "out"
            out.mkdir()
            write(out)
            files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
            for relative in files:
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(out / relative, target)
            if self.enabled:
                self._store(entry, key, out, files)

    def _copy_cached(self, entry: Path, key: str, staging: Path) -> bool:
        try:
            manifest = json.loads((entry / "entry.json").read_text(encoding="utf-8"))
            if manifest.get("format") != FORMAT or manifest.get("key") != key:
                return False
            files = manifest["files"]
            stored = entry / manifest["folder"]
            if not all(isinstance(f, str) and (stored / f).is_file() for f in files):
                return False
            for relative in files:
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(stored / relative, target)
            return True
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False

    def _store(self, entry: Path, key: str, out: Path, files: list[str]) -> None:
        """Keep the unit's files: a new folder beside the old one, then the manifest naming it (so a
        reader sees the old unit or the new one, never half of one), then the old folder removed."""
        try:
            entry.mkdir(parents=True, exist_ok=True)
            folder = f"files-{key[:16]}-{os.getpid()}"
            shutil.rmtree(entry / folder, ignore_errors=True)
            shutil.copytree(out, entry / folder)
            write_atomically(
                entry / "entry.json", json.dumps({"format": FORMAT, "key": key, "folder": folder, "files": files})
            )
            for old in entry.iterdir():
                if old.is_dir() and old.name != folder:
                    shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass  # a cache that cannot be written only costs time


# ---- the build's writers, unit by unit ---------------------------------------------------------


def write_incrementally(
    loaded, staging: Path, env, writers: list[Callable], lesson_writers: list[Callable], cache: OutputCache
) -> None:
    """What `for writer in writers: writer(loaded, staging, env)` then every lesson writer for
    every lesson would write, reusing each unit whose key is unchanged. Content errors of the
    lessons' units are collected and raised together, as the whole writers raise them."""
    from .errors import ContentError, ContentErrors
    from .notebooks import has_notebook, render_notebooks, write_notebooks
    from .quiz.site import checked_practice_variants, quiz_lessons, write_lesson_quiz_pages, write_quiz_pages
    from .search import write_search_index
    from .site import write_assets, write_course_pages, write_lesson_page, write_pages
    from .slides.output import write_decks
    from .slides.quiz import in_class_variants

    site = site_digest(loaded, env)
    lesson_keys = {lesson.id: digest_bytes(site, lesson_digest(loaded, lesson, env)) for lesson in loaded.lessons}
    every_lesson = digest_bytes(site, *lesson_keys.values())
    errors: list[ContentError] = []

    def each_lesson(kind: str, lessons, key_of, write_one) -> None:
        for lesson in lessons:

            def write(out: Path, one=lesson) -> None:
                write_one(one, out)

            try:
                cache.unit(staging, f"{kind}:{lesson.id}", key_of(lesson), write)
            except ContentErrors as exc:
                errors.extend(e for e in exc.errors if str(e) not in {str(x) for x in errors})

    for writer in writers:
        if writer is write_assets:
            cache.unit(staging, "assets", assets_digest(loaded), lambda out: write_assets(loaded, out, env))
        elif writer is write_pages:
            cache.unit(staging, "course-pages", every_lesson, lambda out: write_course_pages(loaded, out, env))

            def lesson_pages(lesson, out: Path) -> None:
                for lang in loaded.course.languages:
                    write_lesson_page(loaded, lesson, lang, out / lang, env)

            each_lesson("lesson-pages", loaded.lessons, lambda lesson: lesson_keys[lesson.id], lesson_pages)
        elif writer is write_search_index:
            _search_index(loaded, staging, cache, lesson_keys)
        elif writer is write_quiz_pages:
            lessons = quiz_lessons(loaded)
            variants = checked_practice_variants(loaded, lessons, env.globals.get("cache_dir"))
            each_lesson(
                "quiz-pages",
                lessons,
                lambda lesson: digest_bytes(lesson_keys[lesson.id], json.dumps(variants[lesson.id], sort_keys=True)),
                lambda lesson, out: write_lesson_quiz_pages(loaded, lesson, variants[lesson.id], out, env),
            )
        elif writer is write_notebooks:
            solutions = bool(env.globals.get("with_solutions", False))

            def notebooks(lesson, out: Path) -> None:
                outputs = render_notebooks(
                    loaded, solutions=solutions, cache_dir=env.globals.get("cache_dir"), lessons=[lesson.id]
                )
                for relative, data in sorted(outputs.items()):
                    write_atomically(out / relative, data)

            lessons = [lesson for lesson in loaded.lessons if has_notebook(lesson)]
            each_lesson("notebooks", lessons, lambda lesson: lesson_keys[lesson.id], notebooks)
        elif writer is write_decks:
            from .slides.fit import layout_available, layout_session, render_lesson_decks

            decks = in_class_variants(loaded, list(loaded.lessons), env.globals.get("cache_dir") or loaded.cache_dir)
            laid_out = "layout checked" if layout_available() else "layout not checked"
            evidence = env.globals.get("claim_evidence", {}) or {}

            def deck_key(lesson) -> str:  # a deck also shows its lesson's quiz (in-class variant) and results
                quiz_file = loaded.quiz_files.get(lesson.id)
                quiz = Path(quiz_file).read_bytes() if quiz_file and Path(quiz_file).is_file() else b""
                results = repr(sorted((k, repr(v)) for k, v in evidence.items() if k[0] == lesson.id))
                return digest_bytes(
                    lesson_keys[lesson.id], quiz, json.dumps(decks.get(lesson.id), sort_keys=True), laid_out, results
                )

            session = contextlib.ExitStack()
            checker = session.enter_context(layout_session())

            def deck(lesson, out: Path) -> None:
                render_lesson_decks(loaded, lesson, out, env, decks.get(lesson.id), checker, site=staging)

            with session:
                each_lesson("slides", loaded.lessons, deck_key, deck)
        else:
            writer(loaded, staging, env)  # a writer this scheme does not know: whole, every build
    for lesson_writer in lesson_writers:
        name = f"{lesson_writer.__module__}.{lesson_writer.__qualname__}"
        each_lesson(
            name,
            loaded.lessons,
            lambda lesson: digest_bytes(lesson_keys[lesson.id], name),
            lambda lesson, out, w=lesson_writer: w(loaded, lesson, out, env),
        )
    if errors:
        raise ContentErrors(errors)


def _search_index(loaded, staging: Path, cache: OutputCache, lesson_keys: dict[str, str]) -> None:
    """assets/search-index.js from per-lesson fragments, each recomputed only when its lesson (or
    its quiz file's title) changed; the fragments live in `<cache>/search-fragments.json`."""
    from .search import lesson_entries, write_search_index_entries

    path = cache.folder / "search-fragments.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8")) if cache.enabled else {}
        if not isinstance(stored, dict) or stored.get("format") != FORMAT:
            stored = {}
    except (OSError, ValueError):
        stored = {}
    old = stored.get("fragments", {}) if isinstance(stored.get("fragments"), dict) else {}
    fragments: dict[str, Any] = {}
    entries: list[dict[str, str]] = []
    for lang in loaded.course.languages:
        for lesson in loaded.lessons:
            quiz_file = loaded.quiz_files.get(lesson.id)
            quiz = Path(quiz_file).read_bytes() if quiz_file and Path(quiz_file).is_file() else b""
            key = digest_bytes(lesson_keys[lesson.id], lang, quiz)
            fragment = old.get(key)
            if not isinstance(fragment, list):
                fragment = lesson_entries(loaded, lesson, lang)
                cache.written.append(f"search:{lang}:{lesson.id}")
            else:
                cache.reused.append(f"search:{lang}:{lesson.id}")
            fragments[key] = fragment
            entries += fragment
    write_search_index_entries(entries, staging)
    if cache.enabled and fragments != old:
        try:
            write_atomically(path, json.dumps({"format": FORMAT, "fragments": fragments}, ensure_ascii=False))
        except OSError:
            pass
