"""Errors that point at a place in a source file.

Every problem found in instructor input is a `ContentError` with a file, a line and
a column, printed as ``file:line:column: message`` (the format compilers use, so
editors can jump to it). Loading collects as many errors as it can before failing,
so an author fixes a file in one pass rather than one error per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from grader.errors import CoursegenError


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int = 0  # 1-based; 0 when unknown
    column: int = 0  # 1-based; 0 when unknown

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column or 1}"
        return self.file


class ContentError(CoursegenError):
    """One mistake in course content, with where it is."""

    exit_status = 1

    def __init__(self, location: Location | str | Path, message: str):
        if not isinstance(location, Location):
            location = Location(str(location))
        self.location = location
        self.message = message
        super().__init__(f"{location}: {message}")


class ContentErrors(CoursegenError):
    """Several content errors, reported together (sorted by place)."""

    exit_status = 1

    def __init__(self, errors: list[ContentError]):
        self.errors = sorted(errors, key=lambda e: (e.location, e.message))
        super().__init__("\n".join(str(e) for e in self.errors))

    def lines(self) -> list[str]:
        return [str(e) for e in self.errors]


class ErrorCollector:
    """Gathers errors during a pass; `raise_if_any()` ends the pass."""

    def __init__(self) -> None:
        self.errors: list[ContentError] = []

    def add(self, location: Location | str | Path, message: str) -> None:
        self.errors.append(ContentError(location, message))

    def extend(self, errors: list[ContentError]) -> None:
        self.errors.extend(errors)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def raise_if_any(self) -> None:
        if self.errors:
            raise ContentErrors(self.errors)


def did_you_mean(name: str, known) -> str:
    """ "; did you mean 'x'?" for the closest of `known`, or "" when none is close."""
    import difflib

    by_folded = {str(k).casefold(): str(k) for k in known}
    close = difflib.get_close_matches(name.casefold(), list(by_folded), n=1, cutoff=0.6)
    return f"; did you mean '{by_folded[close[0]]}'?" if close else ""
