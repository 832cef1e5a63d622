"""The language of the feedback and hints a check writes: "en" or "zh", set by the grader's
pytest plugin for each check (the student's `--lang`)."""

from __future__ import annotations

_language = "en"


def set_language(lang: str) -> None:
    """The language of feedback and hints from now on: "en" or "zh"."""
    global _language
    if lang not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', not {lang!r}")
    _language = lang


def current_language() -> str:
    return _language
