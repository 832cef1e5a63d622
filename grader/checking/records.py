"""What a failing check leaves for the grading driver (grader.running.session) to store in the gradebook:
the ids of the catalogued mistakes whose hints it gave, and the fingerprint of the wrong output
(grader/fingerprint.py; `coursegen mistakes propose` groups submissions by it). The driver takes
both around every check."""

from __future__ import annotations

from typing import Any

_matched: list[str] = []  # ids of the catalogued mistakes matched since the last take_matched_mistakes()


def take_matched_mistakes() -> list[str]:
    """The ids of the catalogued mistakes whose hints were given since the last call (the
    grading driver calls it around every check, to store them in the gradebook)."""
    ids = list(_matched)
    _matched.clear()
    return ids


def note_matched(mistake: Any) -> None:
    if mistake.id not in _matched:
        _matched.append(mistake.id)


_fingerprint: list[str] = []  # the fingerprint of the last failure seen since take_fingerprint()


def note_fingerprint(kind: str, value: Any = None) -> None:
    from grader.fingerprint import fingerprint

    _fingerprint[:] = [fingerprint(kind, value)]


def take_fingerprint() -> str:
    """The fingerprint of the wrong output that made the last check fail ("" when none was
    seen), computed here in the parent from data already decoded; the grading driver stores it."""
    found = _fingerprint[-1] if _fingerprint else ""
    _fingerprint.clear()
    return found
