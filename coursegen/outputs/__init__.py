"""The build's outputs, each one module that yields units.

    OUTPUTS = ["coursegen.outputs.assets", ..., "coursegen.outputs.decks"]   # in build order

An output module has one function, `units(build: BuildInputs) -> Iterator[Unit]`. A `Unit` is a
named group of files of the site (a lesson's pages, its notebooks, its quiz pages, its slide deck;
the course pages; the search index; the assets): its `name` (unique in the build), its `key` (the
digest of everything its files are made from: start from `build.site_key`, `build.lesson_key(lesson)`
or `build.every_lesson_key`, add what else the unit reads) and `write(folder)`, which writes the
unit's files under `folder` as under the site's root, and nothing else.

`coursegen.build.build_site` is one loop over the units of every module of OUTPUTS, cold or
incremental alike: a unit whose key (with the digest of its output module's source) is unchanged
since the last build with the same cache is copied from the cache (coursegen.cache); any other is
written into a folder of its own and copied into the site and the cache. So a new output is one
module plus its name in OUTPUTS, and it is incremental with no other edit. A unit's content errors
are collected and raised together after the loop. Output modules import this module, never the
build. A generator may hold a resource across its units (the decks' Chromium): the loop closes it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from grader.digests import digest_bytes

from ..cache import Cache
from . import keys

OUTPUTS: list[str] = [
    "coursegen.outputs.assets",
    "coursegen.outputs.pages",
    "coursegen.outputs.search_index",
    "coursegen.outputs.quiz_pages",
    "coursegen.outputs.notebooks",
    "coursegen.outputs.decks",
]
SITE_OUTPUTS = OUTPUTS[:3]  # the site itself (pages, search, assets): what the site tests build


@dataclass(frozen=True)
class Unit:
    name: str
    key: str
    write: Callable[[Path], Any]


@dataclass
class BuildInputs:
    """What every output reads: the course as loaded, the page environment (with the example
    outputs, figures and claim evidence in its globals), the cache, the staging folder (the
    site so far: the units of earlier outputs are in it) and the keys every unit starts from."""

    loaded: Any
    env: Any
    cache: Cache
    staging: Path
    reuse: bool = True  # False: a cold build (nothing read from the cache, values computed again)
    site_key: str = ""
    lesson_keys: dict[str, str] = field(default_factory=dict)
    every_lesson_key: str = ""

    @classmethod
    def make(cls, loaded, env, cache: Cache, staging: Path, *, reuse: bool = True) -> BuildInputs:
        site = keys.site_digest(loaded, env)
        lesson_keys = {
            lesson.id: digest_bytes(site, keys.lesson_digest(loaded, lesson, env)) for lesson in loaded.lessons
        }
        return cls(
            loaded=loaded,
            env=env,
            cache=cache,
            staging=Path(staging),
            reuse=reuse,
            site_key=site,
            lesson_keys=lesson_keys,
            every_lesson_key=digest_bytes(site, *lesson_keys.values()),
        )

    def lesson_key(self, lesson) -> str:
        return self.lesson_keys[lesson.id]


def output_modules(names: list[str] | None = None) -> list[ModuleType]:
    """The output modules of OUTPUTS (read when called, so a test may add one), imported."""
    return [importlib.import_module(name) for name in (OUTPUTS if names is None else names)]
