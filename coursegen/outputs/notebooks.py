"""Output: each lesson's student notebooks (and solution notebooks when the build is asked for
them) in every language, one unit per lesson that has exercises."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from grader.atomic import write_atomically

from . import BuildInputs, Unit


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..notebooks import has_notebook, render_notebooks

    loaded, env = build.loaded, build.env
    solutions = bool(env.globals.get("with_solutions", False))  # in the site key too

    for lesson in loaded.lessons:
        if not has_notebook(lesson):
            continue

        def notebooks(out: Path, lesson_id: str = lesson.id) -> None:
            made = render_notebooks(
                loaded, solutions=solutions, cache_dir=env.globals.get("cache_dir"), lessons=[lesson_id]
            )
            for relative, data in sorted(made.items()):
                write_atomically(out / relative, data)

        yield Unit(f"notebooks:{lesson.id}", build.lesson_key(lesson), notebooks)
