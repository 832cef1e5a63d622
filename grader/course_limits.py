"""The course's limits for student code: `limits:` in content/course.yaml, e.g.

    limits: {call_seconds: 2, memory_mb: 512}

overrides the sandbox's defaults (grader.sandbox.limits.Limits) for every check of the course;
$COURSEGEN_SANDBOX_LIMITS still overrides both (CI tuning). `coursegen check` validates the
mapping (coursegen/schema.py CourseLimits: known names, positive numbers, located errors); an
exported grading package has no course.yaml and reads the same mapping from
exercises/limits.json, which the export writes (coursegen/exports/package.py), so Gradescope and
Classroom grade under the limits the instructor set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LIMITS_JSON = "limits.json"  # in exercises/ of an exported grading package
COURSE_LIMITS = ("call_seconds", "import_seconds", "total_seconds", "memory_mb")  # what a course may set


def course_limits(root: str | Path) -> dict[str, Any]:
    """{limit name: value} the course sets (unvalidated here: `coursegen check` validates it); {}
    when it sets none or the file cannot be read."""
    root = Path(root)
    course_file = root / "content" / "course.yaml"
    try:
        if course_file.is_file():
            try:  # PyYAML is the engine's; an exported package reads LIMITS_JSON instead
                import yaml
            except ImportError:
                return {}
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            data = yaml.load(course_file.read_text(encoding="utf-8"), Loader=loader)
            found = data.get("limits") if isinstance(data, dict) else None
        else:
            exported = root / "exercises" / LIMITS_JSON
            found = json.loads(exported.read_text(encoding="utf-8")) if exported.is_file() else None
    except Exception:  # a broken file: `coursegen check` reports it
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        name: value
        for name, value in found.items()
        if name in COURSE_LIMITS and isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    }
