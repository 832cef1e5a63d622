"""The hints of catalogued mistakes, looked up by id (no torch: the reports read them too)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from grader.course import Course


def hints_of(course: Course, ids: Sequence[str], lang: str) -> list[str]:
    """The hints (in `lang`) of `course`'s catalogued mistakes `ids`, in that order, each once;
    ids that are not (or no longer) catalogued are skipped."""
    if not ids:
        return []
    by_id = {m.id: m for m in course.catalogue()}
    hints: list[str] = []
    for mistake_id in ids:
        mistake = by_id.get(mistake_id)
        if mistake is not None:
            hint = mistake.hint.get(lang) or mistake.hint["en"]
            if hint not in hints:
                hints.append(hint)
    return hints
