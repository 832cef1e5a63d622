"""What the class report shows from `coursegen similarity` and `coursegen mistakes propose` outputs
(`coursegen report --similarity DIR --proposals DIR`).

`read_similarity(folder, report)` reads folder/similarity.json (bounded: size and nesting checked
before it is decoded; it is the instructor's own output, but may come from another machine) and
returns the flagged pairs with the sentence that says why and a link, relative to the report
folder, to the pair's section of the evidence page; `read_drafts(folder, report)` maps each
proposal (exercise, students) to a link to its draft file. A folder that holds no such file, or
a file that is not what the command writes, raises IntegrityError with a one-line message.
"""

from __future__ import annotations

from grader.errors import CoursegenError

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

MAX_CHARS = 64 << 20  # similarity.json of 2,000 students (2 million pairs) stays below this
MAX_DEPTH = 8


class IntegrityError(CoursegenError):
    """A --similarity or --proposals folder cannot be read."""


@dataclass
class FlaggedPair:
    students: tuple[str, str]
    score: float
    why: dict[str, str]
    anchor: str  # "pair-<n>" on the evidence page


@dataclass
class SimilarityView:
    link: str  # the evidence page (English), relative to the report folder, URL-quoted
    link_zh: str
    pairs: int
    flagged: list[FlaggedPair] = field(default_factory=list)
    clusters: list[list[str]] = field(default_factory=list)


def read_similarity(folder: Path, report: Path) -> SimilarityView:
    data = _read_json(Path(folder) / "similarity.json", "coursegen similarity")
    try:
        pairs = data["pairs"]
        flagged = [
            FlaggedPair(
                (str(p["students"][0]), str(p["students"][1])),
                float(p["score"]),
                {lang: str(p["evidence"]["why"][lang]) for lang in ("en", "zh")},
                f"pair-{number}",
            )
            for number, p in enumerate((p for p in pairs if p["flagged"] is True), start=1)
        ]
        clusters = [[str(s) for s in cluster] for cluster in data["clusters"]]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise IntegrityError(f"{folder}/similarity.json: not written by coursegen similarity ({exc!r})") from None
    link = _relative(Path(folder) / "index.html", report)
    return SimilarityView(link, _relative(Path(folder) / "zh" / "index.html", report), len(pairs), flagged, clusters)


def read_drafts(folder: Path, report: Path) -> dict[tuple[str, tuple[str, ...]], str]:
    """(exercise, students) -> the link to its draft, relative to the report folder."""
    listing = _read_json(Path(folder) / "proposals.json", "coursegen mistakes propose")
    try:
        return {
            (str(p["exercise"]), tuple(str(s) for s in p["students"])): _relative(
                Path(folder) / str(p["draft"]), report
            )
            for p in listing
            if "/" not in str(p["draft"]) and "\\" not in str(p["draft"])
        }
    except (KeyError, TypeError) as exc:
        raise IntegrityError(f"{folder}/proposals.json: not written by coursegen mistakes propose ({exc!r})") from None


def _read_json(path: Path, command: str):
    from grader.jsonshape import shape_of

    if not path.is_file():
        raise IntegrityError(f"{path}: no such file (give the folder `{command}` wrote)")
    if path.stat().st_size > MAX_CHARS:
        raise IntegrityError(f"{path}: larger than {MAX_CHARS >> 20} MB")
    text = path.read_text(encoding="utf-8", errors="replace")
    values, depth = shape_of(text, max_values=50_000_000)
    if depth > MAX_DEPTH:
        raise IntegrityError(f"{path}: nested {depth} deep; {command} writes at most {MAX_DEPTH}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise IntegrityError(f"{path}: not JSON ({exc})") from None


def _relative(target: Path, report: Path) -> str:
    """`target` as a link from a page in the report folder (URL-quoted, forward slashes)."""
    relative = os.path.relpath(Path(target).resolve(), Path(report).resolve())
    return quote(Path(relative).as_posix())
