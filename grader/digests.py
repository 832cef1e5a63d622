"""Content digests shared by the build and `coursegen verify` (neutral: neither imports the other).

    digest_bytes(*parts)          one SHA-256 over length-prefixed parts (bytes or str)
    file_digest(path)             a file's bytes ("absent" / "unreadable" when it cannot be read)
    digest_files(paths, base)     (name, bytes) of several files, in the order given
    tree_files(folder, pattern)   every file under a folder, sorted, caches and bytecode left out
    digest_tree(folder, pattern)  one digest over a whole folder
    engine_digest()               the installed engine (`grader` and `coursegen` sources and templates)
    library_versions()            Python and the libraries a proof's outcome may depend on

The build's caches (coursegen/cache.py) and the proof cache (grader/verifying/proof_cache.py) key
their entries with these, so both see the same change the same way; standard library only.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Iterable

LIBRARIES = ("torch", "numpy", "pytest", "hypothesis", "pydantic", "ruamel.yaml", "coursegen")
_IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"}


def digest_bytes(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    """The digest of one file's bytes; "absent" for a missing file, "unreadable" for one that
    cannot be read (so a file appearing or disappearing changes the key too)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "unreadable"


def digest_files(paths: Iterable[Path], base: Path | None = None) -> str:
    """One digest over (name, bytes) of several files, in the order given."""
    parts: list[str] = []
    for path in paths:
        name = str(Path(path).relative_to(base)) if base is not None and Path(path).is_relative_to(base) else str(path)
        parts += [name, file_digest(Path(path))]
    return digest_bytes(*parts)


def tree_files(folder: Path, pattern: str = "*") -> list[Path]:
    """Every file under `folder` matching `pattern` (sorted; caches and bytecode left out)."""
    import fnmatch
    import os

    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    # links are followed (coursegen/templates is a link to the engine's templates)
    for current, folders, names in os.walk(folder, followlinks=True):
        folders[:] = [name for name in folders if name not in _IGNORED_PARTS]
        for name in names:
            if fnmatch.fnmatch(name, pattern) and not name.endswith(".pyc"):
                path = Path(current) / name
                if path.is_file():
                    found.append(path)
    return sorted(found)


def digest_tree(folder: Path, pattern: str = "*") -> str:
    """One digest over every file of a folder (names and bytes): any file added, removed or
    changed changes it."""
    folder = Path(folder)
    return digest_bytes(str(folder.name), digest_files(tree_files(folder, pattern), folder))


_engine: str | None = None


def engine_digest() -> str:
    """The engine that runs the proofs: the source of the installed `grader` and `coursegen`
    packages (every .py and template file, a course's grader/checks left out: those are the
    course's), with the package version. Computed once per process."""
    global _engine
    if _engine is None:
        here = Path(__file__).resolve().parent  # grader/
        parts = []
        for package in (here, here.parent / "coursegen"):
            files = [p for p in tree_files(package) if "checks" not in p.relative_to(package).parts[:1]]
            parts.append(digest_files(files, package.parent))
        _engine = digest_bytes(*parts)
    return _engine


def library_versions() -> str:
    """Python and the libraries a proof's outcome may depend on, as one string."""
    parts = [f"python={platform.python_version()}", f"implementation={sys.implementation.name}"]
    return ";".join([*parts, *package_versions(LIBRARIES)])


def package_versions(names: Iterable[str]) -> list[str]:
    """ "name=version" of each installed package ("name=absent" where it is not installed)."""
    parts = []
    for name in names:
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{name}=absent")
    return parts
