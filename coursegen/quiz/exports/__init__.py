"""Quiz exports for learning management systems. Each module turns a list of variants
(see coursegen.quiz.variants) into one file: `gift.render`, `moodle_xml.render` and
`json_export.render` return text; `qti.render` returns the bytes of a zip.

`write_export(variants, fmt, path)` writes any of them atomically (temp file + rename).
"""

from __future__ import annotations

from pathlib import Path

from grader.atomic import write_atomically

FORMATS = ("gift", "moodle-xml", "qti", "json")


def render(variants: list[dict], fmt: str) -> bytes:
    if fmt == "gift":
        from .gift import render as gift

        return gift(variants).encode("utf-8")
    if fmt == "moodle-xml":
        from .moodle_xml import render as moodle

        return moodle(variants).encode("utf-8")
    if fmt == "qti":
        from .qti import render as qti

        return qti(variants)
    if fmt == "json":
        from .json_export import render as as_json

        return as_json(variants).encode("utf-8")
    raise ValueError(f"unknown export format '{fmt}'; expected one of {', '.join(FORMATS)}")


def write_export(variants: list[dict], fmt: str, path: str | Path) -> Path:
    """Render then write `path` in one step: a failure leaves no half-written file."""
    data = render(variants, fmt)
    return write_atomically(path, data, mode=0o644)
