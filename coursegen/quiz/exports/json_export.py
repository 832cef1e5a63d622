"""JSON export: the variants exactly as the engine builds them (the format the site and the grader read)."""

from __future__ import annotations

import json

FORMAT = "coursegen-quiz"
VERSION = 1


def render(variants: list[dict]) -> str:
    document = {"format": FORMAT, "version": VERSION, "variants": variants}
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
