"""Writing files and folders so that a reader never sees half of one.

    write_atomically(path, data, mode=None)   bytes or text (UTF-8, "\\n" newlines) to a temporary
                                              file beside `path`, then renamed onto it
    with staged_file(path) as temporary:      a file written by other means (SQLite), renamed onto
                                              `path` when the block succeeds, removed if it fails
    with staged_folder(out_dir) as staging:   an empty folder beside `out_dir`, filled by the block,
                                              then put in its place; removed if the block fails
    replace_folder(out_dir, staging)          a complete folder put where `out_dir` is, the old one
                                              deleted only after the new one is in place

Shared by the build engine and the grader (the one place where temp-then-rename is written).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Iterator


def write_atomically(path: str | os.PathLike[str], data: bytes | str, *, mode: int | None = None) -> Path:
    """Write `data` to `path` through a temporary file in the same folder; on any error the
    temporary file is removed and `path` is untouched. `mode`: the file's permission bits
    (default: the process's umask applies, as for any new file)."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with staged_file(path) as temporary:
        with open(temporary, "xb") as out:
            out.write(payload)
        if mode is not None:
            os.chmod(temporary, mode)
    return path


@contextlib.contextmanager
def staged_file(path: str | os.PathLike[str], *, companions: tuple[str, ...] = ()) -> Iterator[Path]:
    """A fresh temporary path beside `path` (not created) for the block to write; renamed onto
    `path` when the block succeeds. On any error it is removed, with the files named by adding
    each of `companions` to its name (SQLite's "-wal" and "-shm"), and `path` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        for leftover in (temporary, *(Path(f"{temporary}{suffix}") for suffix in companions)):
            leftover.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def staged_folder(
    out_dir: str | os.PathLike[str], *, label: str = "staging", mode: int | None = 0o755
) -> Iterator[Path]:
    """An empty folder beside `out_dir` (named `.<name>.<label>-XXXX`) for the block to fill; when
    the block succeeds it gets permission bits `mode` (mkdtemp makes it 0700) and replaces
    `out_dir` (replace_folder). On any error it is deleted and `out_dir` is untouched."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.{label}-", dir=out_dir.parent))
    try:
        yield staging
        if mode is not None:
            staging.chmod(mode)
        replace_folder(out_dir, staging)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def replace_folder(out_dir: str | os.PathLike[str], staging: str | os.PathLike[str]) -> None:
    """Put the complete folder `staging` at `out_dir` (same parent folder, so both are renames):
    the old `out_dir` is renamed aside first and deleted last; if moving `staging` in fails, the
    old folder is put back."""
    out_dir, staging = Path(out_dir), Path(staging)
    aside = None
    if out_dir.exists():
        aside = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.rename(out_dir, aside / "previous")
    try:
        os.rename(staging, out_dir)
    except BaseException:
        if aside is not None:
            os.rename(aside / "previous", out_dir)
            aside.rmdir()
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
