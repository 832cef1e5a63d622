"""The build's one cache (`.coursegen-cache/` of the course, or `--cache-dir`): every cached value
and every output unit, keyed by the digest of what it is made from (grader/digests.py).

    cache = Cache(root / ".coursegen-cache")
    cache.get(kind, key)                     # the value stored under (kind, key), or None
    cache.put(kind, key, value)              # store a JSON value (atomically)
    cache.value(kind, key, compute)          # get, or compute() and put; always the value as stored
    cache.place_unit(staging, name, key, write, reuse=True) -> reused?   # an output unit's files

Values (examples' outputs, figures' SVG, experiments' results, quiz variants, self-check expected
values, search index fragments) live in `<folder>/<kind>/<key>.json` as
`{"format", "kind", "key", "value"}`. An output unit (coursegen/outputs: a named group of files
of the site) lives in `<folder>/site/<name>/`: `entry.json` (format, key, the folder holding the
files, their names) beside that folder.

Rules (those of the proof cache, grader/verifying/proof_cache.py): an entry that cannot be read
(missing, corrupt JSON, another format, another key, a file of a unit gone) is a miss, never an
error; every write is atomic (grader/atomic.py: a reader sees the old entry or the new one, never
half of one); a cache that cannot be written only costs time. A value comes back as JSON gives it
(`value` returns what a later, cached build will read, so a cold and a warm build agree).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

from grader.atomic import write_atomically

FORMAT = "2"  # bump when what an entry holds changes
UNITS = "site"  # the units' folder under the cache


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "entry"


class Cache:
    """Cached values and output units under `folder`."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.made: dict[str, int] = {}  # kind -> values computed in this process
        self.reused: dict[str, int] = {}  # kind -> values read from the cache

    # ---- values --------------------------------------------------------------------------
    def path(self, kind: str, key: str) -> Path:
        return self.folder / _slug(kind) / f"{_slug(key)}.json"

    def get(self, kind: str, key: str) -> Any | None:
        """The value stored under (kind, key), or None (a miss, whatever the reason)."""
        try:
            entry = json.loads(self.path(kind, key).read_text(encoding="utf-8"))
            if not isinstance(entry, dict) or entry.get("format") != FORMAT:
                return None
            if entry.get("kind") != kind or entry.get("key") != key or "value" not in entry:
                return None
            return entry["value"]
        except (OSError, ValueError):
            return None

    def put(self, kind: str, key: str, value: Any) -> None:
        """Store `value` (JSON data) under (kind, key), replacing what was there."""
        entry = {"format": FORMAT, "kind": kind, "key": key, "value": value}
        try:
            # the value's own order is kept (a YAML document's keys, a variant's fields): what a
            # cached build reads is what a cold one computed
            write_atomically(self.path(kind, key), json.dumps(entry, ensure_ascii=False))
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written only costs time

    def value(self, kind: str, key: str, compute: Callable[[], Any], *, reuse: bool = True) -> Any:
        """The value of (kind, key): the stored one (unless `reuse` is False), else `compute()`,
        stored and returned as JSON gives it back."""
        if reuse:
            found = self.get(kind, key)
            if found is not None:
                self.reused[kind] = self.reused.get(kind, 0) + 1
                return found
        value = json.loads(json.dumps(compute(), ensure_ascii=False))
        self.made[kind] = self.made.get(kind, 0) + 1
        self.put(kind, key, value)
        return value

    # ---- output units --------------------------------------------------------------------
    def place_unit(
        self, staging: Path, name: str, key: str, write: Callable[[Path], Any], *, reuse: bool = True
    ) -> bool:
        """Put the unit's files into `staging`: from the cache when `reuse` and its key is
        unchanged (True), else by `write(folder)` into a folder of its own, copied into `staging`
        and kept in the cache for the next build (False)."""
        staging = Path(staging)
        entry = self.folder / UNITS / _slug(name)
        if reuse and self._copy_unit(entry, key, staging):
            return True
        with tempfile.TemporaryDirectory(prefix=".unit-", dir=staging.parent) as scratch:
            out = Path(scratch) / "out"
            out.mkdir()
            write(out)
            files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
            for relative in files:
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(out / relative, target)
            self._store_unit(entry, key, out, files)
        return False

    def _copy_unit(self, entry: Path, key: str, staging: Path) -> bool:
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

    def _store_unit(self, entry: Path, key: str, out: Path, files: list[str]) -> None:
        """Keep the unit's files: a new folder beside the old one, then the manifest naming it (so a
        reader sees the old unit or the new one, never half of one), then the old folder removed."""
        try:
            entry.mkdir(parents=True, exist_ok=True)
            folder = f"files-{key[:16]}-{os.getpid()}"
            shutil.rmtree(entry / folder, ignore_errors=True)
            shutil.copytree(out, entry / folder)
            manifest = {"format": FORMAT, "key": key, "folder": folder, "files": files}
            write_atomically(entry / "entry.json", json.dumps(manifest))
            for old in entry.iterdir():
                if old.is_dir() and old.name != folder:
                    shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass  # a cache that cannot be written only costs time
