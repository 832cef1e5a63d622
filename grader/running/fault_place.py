"""Where a check broke: the line of the check (or of a fixture in its folder) that an unexpected
exception went through, and the innermost line it was raised at when that is elsewhere.

    grader/checks/test_topic.py:42 (raised in grader/checking/comparison.py:88)

Used for verify's odd-value probes (grader/verifying/odd_values.py), whose check faults the
instructor must be able to find; paths are relative to the course root when inside it.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any


def fault_place(error: BaseException | None, item: Any, root: Path) -> str:
    """'file:line' of the deepest frame of `error`'s traceback in the folder of check `item`,
    with the innermost frame when it lies elsewhere; the check's own location without a traceback."""
    checks = Path(str(item.path)).resolve().parent
    frames = traceback.extract_tb(error.__traceback__) if error is not None else []
    inside = [f for f in frames if _within(f.filename, checks)]
    if not inside:
        path, line, _ = item.location
        return f"{_shown(Path(str(item.path)), root)}:{(line or 0) + 1}"
    place = f"{_shown(Path(inside[-1].filename), root)}:{inside[-1].lineno}"
    innermost = frames[-1]
    if innermost is not inside[-1]:
        place += f" (raised in {_shown(Path(innermost.filename), root)}:{innermost.lineno})"
    return place


def _within(filename: str, folder: Path) -> bool:
    try:
        return Path(filename).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def _shown(path: Path, root: Path) -> str:
    try:
        resolved, base = path.resolve(), Path(root).resolve()
    except (OSError, ValueError):
        return str(path)
    if resolved.is_relative_to(base):
        return str(resolved.relative_to(base))
    parts = resolved.parts
    if "site-packages" in parts:  # a library's file: from the package on
        return str(Path(*parts[len(parts) - parts[::-1].index("site-packages") :]))
    return str(path)
