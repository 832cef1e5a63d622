"""Writing export output: atomically (nothing half-written) and deterministically (same bytes)."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import zipfile
from pathlib import Path
from typing import AbstractSet, Iterator

from grader.atomic import staged_folder, write_atomically
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from grader.errors import CoursegenError

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "export"
EXPORT_MARKER = ".coursegen-export"  # names a folder we wrote, so that we may replace it
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: no build date leaks in
EXECUTABLE_MODE = 0o755
FILE_MODE = 0o644


class ExportError(CoursegenError):
    """The export cannot be written (a bad output path, a missing piece). One sentence."""


def render(template_name: str, **context: object) -> str:
    """Render templates/export/<template_name> (Jinja2, strict: a missing variable is an error)."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)), undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    return env.get_template(template_name).render(**context)


def write_text(path: Path, text: str, *, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    path.chmod(EXECUTABLE_MODE if executable else FILE_MODE)


def copy_file(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(source.read_bytes())
    dest.chmod(FILE_MODE)


@contextlib.contextmanager
def staged_directory(out_dir: Path) -> Iterator[Path]:
    """Yield an empty staging folder next to `out_dir`; swap it in only if the block succeeds.

    An existing `out_dir` is replaced only when it is empty or an earlier export (it holds
    EXPORT_MARKER); anything else is refused, so an export never deletes someone's work.
    """
    out_dir = Path(out_dir).resolve()
    if out_dir.exists():
        if not out_dir.is_dir():
            raise ExportError(f"{out_dir}: exists and is not a folder; choose another -o")
        if any(out_dir.iterdir()) and not (out_dir / EXPORT_MARKER).exists():
            raise ExportError(
                f"{out_dir}: folder is not empty and was not written by coursegen export; choose another -o or empty it"
            )
    with staged_folder(out_dir, mode=None) as staging:
        yield staging
        (staging / EXPORT_MARKER).write_text("written by `coursegen export`; safe to delete\n", encoding="utf-8")


def deterministic_zip(source_dir: Path, zip_path: Path, *, executables: AbstractSet[str] = frozenset()) -> None:
    """Zip the files under `source_dir` (paths relative to it, sorted, fixed timestamps and modes),
    written to a temporary file and moved onto `zip_path` when complete."""
    source_dir, zip_path = Path(source_dir), Path(zip_path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in source_dir.rglob("*") if p.is_file())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in files:
            name = path.relative_to(source_dir).as_posix()
            info = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = EXECUTABLE_MODE if (name in executables or os.access(path, os.X_OK)) else FILE_MODE
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.create_system = 3  # Unix, so the modes above are honoured when extracted
            archive.writestr(info, path.read_bytes())
    write_atomically(zip_path, buffer.getvalue(), mode=FILE_MODE)
