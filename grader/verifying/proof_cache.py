"""A cache of passed proofs, keyed by the content hash of everything a proof depends on.

`coursegen verify` proves many independent things (a reference against its checks, a stub, a
mistake and its hint, a quiz key against its oracle, ...). Each is a *proof* of some *kind*,
named within its kind (`vectors/reference`), whose *key* is the SHA-256 of every input it
depends on: the files (`digest_files`, `digest_tree`), the engine's own source and version
(`engine_digest`), the libraries (`library_versions`) and any data (a hint's text). A proof
kind plugs in with a key and a run function:

    cache = ProofCache(root / ".coursegen-cache" / "verify", enabled=not all_)
    key = cache.key("reference", common_digest, reference_text)
    payload = cache.get("reference", "vectors/reference", key)      # None: prove it
    if payload is None:
        payload, passed = run()
        if passed:
            cache.put("reference", "vectors/reference", key, payload)

or `cache.prove(kind, name, key, run)` for a proof that runs on its own. A proof may also
record files it turned out to read while running (`deps`, e.g. the mistakes a quiz's answer
function ran): the entry is reused only while every one of them still has the digest it had.

Rules: only passing proofs are stored (a failure is re-proven every time); an entry that
cannot be read (missing, corrupt JSON, another format, another key, a dependency changed) is a
miss, never an error; writes are atomic (grader/atomic.py); one entry per proof name is kept
(the new one replaces the old). `enabled=False` (`verify --all`) reads nothing but still
stores what passed. A cache that cannot be written only costs time.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from grader.atomic import write_atomically
from grader.digests import (  # noqa: F401 (re-exported: the digests verify's callers name here)
    digest_bytes,
    digest_files,
    digest_tree,
    engine_digest,
    file_digest,
    library_versions,
    tree_files,
)

FORMAT = "1"  # bump when what an entry holds changes


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "proof"


class ProofCache:
    """Passed proofs under `folder` (one JSON file per proof: `<kind>/<name>.json`)."""

    def __init__(self, folder: Path | str, *, enabled: bool = True, base: Path | str | None = None) -> None:
        self.folder = Path(folder)
        self.enabled = enabled
        # recorded dependencies under `base` (the course root) are kept relative to it, so that a
        # course folder moved or copied with its cache keeps its proofs
        self.base = Path(base).resolve() if base is not None else None
        self.reused = 0
        self.proved = 0
        self.proven: list[tuple[str, str]] = []  # (kind, name) of each proof run in this process
        self._common = digest_bytes(FORMAT, engine_digest(), library_versions())

    def key(self, kind: str, *parts: bytes | str) -> str:
        """The key of a proof of `kind` over `parts` (digests or data), engine and libraries included."""
        return digest_bytes(self._common, kind, *parts)

    def _relative(self, path: Path) -> str:
        if self.base is not None and path.resolve().is_relative_to(self.base):
            return path.resolve().relative_to(self.base).as_posix()
        return str(path)

    def _absolute(self, name: str) -> Path:
        path = Path(name)
        return path if path.is_absolute() or self.base is None else self.base / path

    def _path(self, kind: str, name: str) -> Path:
        return self.folder / _slug(kind) / f"{_slug(name)}.json"

    def get(self, kind: str, name: str, key: str, *, count: bool = True) -> Any | None:
        """The payload stored for this proof under this key, or None (a miss, whatever the reason).
        `count=False`: only look (a plan made before proving; the proof itself counts)."""
        if not self.enabled:
            return None
        try:
            entry = json.loads(self._path(kind, name).read_text(encoding="utf-8"))
            if not isinstance(entry, dict) or entry.get("format") != FORMAT:
                return None
            if entry.get("kind") != kind or entry.get("name") != name or entry.get("key") != key:
                return None
            deps = entry.get("deps", {})
            if not isinstance(deps, dict) or any(file_digest(self._absolute(p)) != d for p, d in deps.items()):
                return None
            if "payload" not in entry:
                return None
        except (OSError, ValueError, TypeError):
            return None
        self.reused += count
        return entry["payload"]

    def put(self, kind: str, name: str, key: str, payload: Any, deps: Iterable[Path] = ()) -> None:
        """Store a passed proof (replacing the entry of the same name); `deps`: files read while
        proving that the key does not cover already (their digests are checked at `get`)."""
        entry = {
            "format": FORMAT,
            "kind": kind,
            "name": name,
            "key": key,
            "deps": {self._relative(Path(p)): file_digest(Path(p)) for p in sorted(set(deps))},
            "payload": payload,
        }
        try:
            write_atomically(self._path(kind, name), json.dumps(entry, ensure_ascii=False, sort_keys=True))
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written only costs time

    def prove(
        self,
        kind: str,
        name: str,
        key: str,
        run: Callable[[], tuple[Any, bool]],
        *,
        record_under: Path | None = None,
    ) -> tuple[Any, bool]:
        """(payload, reused) for one proof: the cached payload, or `run()` -> (payload, passed),
        stored when it passed. With `record_under`, the course modules under that folder that
        the run imports (see `recording_imports`) become the entry's dependencies."""
        cached = self.get(kind, name, key)
        if cached is not None:
            return cached, True
        self.ran(kind, name)
        if record_under is None:
            payload, passed = run()
            deps: set[Path] = set()
        else:
            with recording_imports(record_under) as deps:
                payload, passed = run()
        if passed:
            self.put(kind, name, key, payload, deps)
        return payload, False

    def ran(self, kind: str, name: str) -> None:
        """Count a proof that was run (not reused), whether it passed or not."""
        self.proved += 1
        self.proven.append((kind, name))

    @property
    def summary(self) -> str:
        total = self.reused + self.proved
        return f"{total} proofs, {self.reused} reused" + ("" if self.enabled else " (--all: cache not read)")


@contextlib.contextmanager
def recording_imports(root: Path) -> Iterator[set[Path]]:
    """The set (filled while the block runs) of files under `root` whose modules the block
    imports, by an import statement or importlib.import_module, even when already imported,
    plus what those files import in turn (read from their source)."""
    root = Path(root).resolve()
    seen: set[Path] = set()
    original_import = builtins.__import__
    original_import_module = importlib.import_module

    where: dict[str, Path | None] = {}  # module name -> its file under root (None: elsewhere)

    def locate(name: str) -> None:
        if name in where:
            found = where[name]
        else:
            module = sys.modules.get(name)
            if module is None:
                return
            file = getattr(module, "__file__", None)
            found = Path(file).resolve() if file else None
            found = where[name] = found if found is not None and found.is_relative_to(root) else None
        if found is not None:
            seen.add(found)

    def note(name: str, fromlist: Iterable[str] = ()) -> None:
        locate(name)
        for item in fromlist or ():
            if isinstance(item, str) and item != "*":
                locate(f"{name}.{item}")

    def recording_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        module = original_import(name, globals, locals, fromlist, level)
        if level == 0:
            note(name, fromlist)
        else:
            note(getattr(module, "__name__", name), fromlist)
        return module

    def recording_import_module(name, package=None):
        module = original_import_module(name, package)
        note(module.__name__)
        return module

    builtins.__import__ = recording_import
    importlib.import_module = recording_import_module
    try:
        yield seen
    finally:
        builtins.__import__ = original_import
        importlib.import_module = original_import_module
        seen |= _import_closure(seen, root)


def _import_closure(files: set[Path], root: Path) -> set[Path]:
    """Course files imported (anywhere in the source, at any depth) by `files`."""
    import ast

    found: set[Path] = set()
    todo = list(files)
    while todo:
        path = todo.pop()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            for name in names:
                for target in (
                    (root / Path(*name.split("."))).with_suffix(".py"),
                    root / Path(*name.split(".")) / "__init__.py",
                ):
                    if target.is_file() and target not in files and target not in found:
                        found.add(target)
                        todo.append(target)
    return found


VERIFY_CACHE = Path(".coursegen-cache") / "verify"  # under the course root, beside the build's caches


def verify_cache(root: Path, *, use_cache: bool = True) -> ProofCache:
    """The proof cache of the course at `root`; `use_cache=False` (`verify --all`) proves
    everything again, and stores what passes."""
    return ProofCache(Path(root).resolve() / VERIFY_CACHE, enabled=use_cache, base=Path(root))
