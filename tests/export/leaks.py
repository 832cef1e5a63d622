"""What must never reach a student repository, and a scanner for it.

Secrets are read from the course itself: the solution regions of solutions/*.py, the
hints of every catalogued mistake (both languages), and the names and bodies of the hidden
checks. Every exported file is scanned as raw text and, for JSON files (notebooks, the
recording), as the strings it decodes to (so an escaped quote or \\uXXXX cannot hide a hit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from coursegen.exports.package import check_definitions

MIN_LINE = 12  # shorter lines ("return x", "else:") are too generic to mean a leak


@dataclass(frozen=True)
class Secret:
    what: str  # where it comes from, for the failure message
    text: str


def published_text(root: Path) -> str:
    """What the course publishes anyway: the stubs and the lesson and quiz files (task statements
    may spell out an interface, e.g. the attributes a class must have)."""
    paths = sorted((root / "exercises").glob("*.py")) + sorted((root / "content").rglob("*.yaml"))
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)


def solution_lines(root: Path) -> list[Secret]:
    """Lines of the solution regions (not published elsewhere by the course itself)."""
    published = published_text(root)
    secrets = []
    for path in sorted((root / "solutions").glob("*.py")):
        inside = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped == "# BEGIN SOLUTION":
                inside = True
            elif stripped == "# END SOLUTION":
                inside = False
            elif inside and len(stripped) >= MIN_LINE and not stripped.startswith("#") and stripped not in published:
                secrets.append(Secret(f"solutions/{path.name}:{number}", stripped))
    return secrets


def mistake_hints() -> list[Secret]:
    from tests.first_course import catalogue

    return [
        Secret(f"hint of mistake {m.id} ({lang})", text) for m in catalogue() for lang, text in sorted(m.hint.items())
    ]


def hidden_checks(root: Path) -> list[Secret]:
    """Names of hidden checks, and body lines of theirs found nowhere else in the check modules
    (a line that a public check or a helper also contains is public anyway)."""
    public_lines: set[str] = set()
    hidden = []
    for path in sorted((root / "grader" / "checks").glob("test_*.py")):
        definitions = check_definitions(path)
        lines = path.read_text(encoding="utf-8").splitlines()
        hidden_rows = {row for d in definitions if d.hidden for row in range(d.first_line - 1, d.last_line)}
        public_lines.update(line.strip() for row, line in enumerate(lines) if row not in hidden_rows)
        hidden += [d for d in definitions if d.hidden]
    secrets = []
    for d in hidden:
        secrets.append(Secret(f"hidden check name {d.name}", d.name))
        for line in d.source.splitlines():
            stripped = line.strip()
            if (
                len(stripped) >= MIN_LINE
                and not stripped.startswith("@")
                and not any(stripped in public for public in public_lines)
            ):
                secrets.append(Secret(f"hidden check body {d.name}", stripped))
    return secrets


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    return []


def readable_texts(tree: Path) -> dict[str, str]:
    """Every file under `tree` as text (raw, plus decoded JSON strings for .json/.ipynb)."""
    texts = {}
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        raw = path.read_bytes().decode("utf-8", errors="replace")
        extra = ""
        if path.suffix in (".json", ".ipynb"):
            extra = "\n".join(_strings(json.loads(raw)))
        texts[str(path.relative_to(tree))] = raw + "\n" + extra
    return texts


def find_leaks(tree: Path, secrets: list[Secret]) -> list[str]:
    texts = readable_texts(tree)
    return [
        f"{name}: contains {secret.what}: {secret.text[:60]!r}"
        for secret in secrets
        for name, text in texts.items()
        if secret.text in text
    ]
