"""A small on-disk memo for pure text -> text functions (Markdown, MathML, search text).

Parsing the Markdown and converting the math of a whole course takes about a second;
a rebuild where nothing changed should not pay it again. Functions decorated with
`@memoized("name")` take one string and return JSON data; their results are kept in the
build's cache (coursegen.cache, the value of kind "memo", attached by the loader) under a hash of
the input and reused while the library versions and the code of the memoised modules stay the
same. Without an attached cache the memo only lives in memory.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from .cache import Cache

MEMO_FORMAT = "1"


# The memoised functions live in these modules: a change to their code invalidates the memo.
MEMOISED_MODULES = ("markdown.py", "mathml.py", "mathtext.py")


def _versions() -> str:
    here = Path(__file__).parent
    code = hashlib.sha1(b"".join((here / name).read_bytes() for name in MEMOISED_MODULES)).hexdigest()
    parts = [MEMO_FORMAT, f"code={code[:16]}"]
    for package in ("markdown-it-py", "mdit-py-plugins", "latex2mathml", "Pygments"):
        try:
            parts.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{package}=absent")
    return ";".join(parts)


class DiskMemo:
    def __init__(self) -> None:
        self.cache: Cache | None = None
        self.entries: dict[str, Any] = {}
        self.used: set[str] = set()
        self.dirty = False
        self._version = _versions()

    def attach(self, cache_dir: Path | str) -> None:
        """Keep the memo in the cache at `cache_dir` (loaded once; re-attaching the same is free)."""
        cache = Cache(cache_dir)
        if self.cache is not None and self.cache.folder == cache.folder:
            return
        self.cache = cache
        raw = cache.get("memo", "memo")
        if isinstance(raw, dict) and raw.get("version") == self._version and isinstance(raw.get("entries"), dict):
            self.entries.update(raw["entries"])

    def lookup(self, namespace: str, text: str, compute: Callable[[str], Any]) -> Any:
        key = hashlib.sha1(f"{namespace}\0{text}".encode()).hexdigest()
        self.used.add(key)
        if key in self.entries:
            return self.entries[key]
        value = compute(text)
        self.entries[key] = value
        self.dirty = True
        return value

    def save(self, *, prune: bool = False) -> None:
        """Write the memo (if attached and changed); `prune` keeps only entries used in this process."""
        if self.cache is None:
            return
        if prune and set(self.entries) != self.used:
            self.entries = {k: v for k, v in self.entries.items() if k in self.used}
            self.dirty = True
        if not self.dirty:
            return
        self.cache.put("memo", "memo", {"version": self._version, "entries": self.entries})
        self.dirty = False


MEMO = DiskMemo()


def memoized(namespace: str, *, decode: Callable[[Any], Any] = lambda value: value) -> Callable:
    """Decorator: memoise a str -> JSON-data function in MEMO (and in this process)."""

    def wrap(function: Callable[[str], Any]) -> Callable[[str], Any]:
        @functools.lru_cache(maxsize=None)
        def memo(text: str) -> Any:
            return decode(MEMO.lookup(namespace, text, function))

        memo.__doc__ = function.__doc__
        memo.__name__ = function.__name__
        memo.__wrapped__ = function
        return memo

    return wrap
