"""What an output unit's key is made of (the inputs shared by every output; coursegen/outputs).

site key (every unit)   the engine (coursegen's and grader's source, their templates), the
                        libraries that render (Jinja2, markdown-it, Pygments, nbformat, ...),
                        the course's templates/, content/plugins/, exercises/, solutions/,
                        grader/checks/ (points), content/course.yaml as loaded, every lesson's
                        id and title (the navigation on every page) and the build's settings
a lesson's key          + that lesson as loaded (every field), its example outputs and figures
                        (the page's and the decks' renditions)
every lesson's key      + every lesson's key (index, glossary, exercises list and search pages
                        list or link every lesson; a course's own templates may show more)
assets key              the engine, the libraries and the course's templates/ only
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.digests import digest_bytes, digest_tree, engine_digest, package_versions

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
    return ";".join(package_versions(RENDER_LIBRARIES))


def lesson_digest(loaded, lesson, env) -> str:
    """A lesson as loaded (every field), with its example outputs and figures."""
    outputs = env.globals.get("example_outputs", {})
    svgs = env.globals.get("figure_svgs", {})
    deck_svgs = env.globals.get("deck_figure_svgs", {})
    mine = lambda table: sorted((block, text) for (lesson_id, block), text in table.items() if lesson_id == lesson.id)  # noqa: E731
    return digest_bytes(
        lesson.model_dump_json(),
        json.dumps([mine(outputs), mine(svgs), mine(deck_svgs)], ensure_ascii=False),
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
