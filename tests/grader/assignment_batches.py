"""Submissions and instructor facts for the assignment tests, written apart from the code under test.

`declared_points(exercise)` reads the check files with a regular expression (not grader.reporting.assignments'
ast reader): the sum of each check's `@pytest.mark.points(n)` (default 1) for that exercise.
The submissions are cut from the references (solutions/) and from the instructor notebook the
real `coursegen notebooks` writes, edited the way a student would edit them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "grader" / "checks"


def declared_points(exercise: str) -> float:
    total = 0.0
    for path in sorted(CHECKS.glob("test_*.py")):
        marks: list[str] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("@pytest.mark."):
                marks.append(line)
            elif line.startswith(("def test", "async def test")):
                names = [m for m in marks if m.startswith("@pytest.mark.exercise(")]
                if names and re.search(r'"([^"]+)"', names[0]).group(1) == exercise:
                    points = [m for m in marks if m.startswith("@pytest.mark.points(")]
                    total += float(re.search(r"\(([\d.]+)\)", points[0]).group(1)) if points else 1.0
                marks = []
            elif line.strip() and not line.startswith((" ", "#", ")")):
                marks = []
    return total


def rope_alibi_max() -> float:
    """The lesson rope-alibi's exercises (content/lessons/rope-alibi.yaml): apply_rope, alibi_slopes, alibi_bias."""
    return sum(declared_points(name) for name in ("apply_rope", "alibi_slopes", "alibi_bias"))


def apply_rope_only() -> str:
    """solutions/rope.py without ntk_base (the rope-alibi assignment's rope.py)."""
    source = (ROOT / "solutions" / "rope.py").read_text(encoding="utf-8")
    return source[: source.index("def ntk_base")]


def alibi() -> str:
    return (ROOT / "solutions" / "alibi.py").read_text(encoding="utf-8")


def solution_notebook(out: Path, lesson: str) -> dict:
    """The instructor notebook of `lesson`, written by the real command line."""
    subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "notebooks", "--root", str(ROOT), "--only-solutions"]
        + ["--lesson", lesson, "--lang", "en", "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    return json.loads((out / "en" / f"{lesson}-solution.ipynb").read_text(encoding="utf-8"))


def cut_down(notebook: dict, keep: str, *, metadata: bool = True, cells: bool = True) -> dict:
    """The notebook narrowed to one exercise: its metadata list and/or the other exercises' cells deleted."""
    notebook = json.loads(json.dumps(notebook))
    if metadata:
        notebook["metadata"]["coursegen"]["exercises"] = [keep]
    if cells:
        notebook["cells"] = [
            c for c in notebook["cells"] if (c["metadata"].get("coursegen") or {}).get("exercise") in (None, keep)
        ]
    return notebook


def write_headline_batch(folder: Path, notebook: dict) -> Path:
    """alice: rope.py (apply_rope only) + alibi.py; bob: rope.py only; mallory: a rope-alibi
    notebook cut down to alibi_slopes (metadata edited, the other exercise cells deleted)."""
    for student in ("alice", "bob", "mallory"):
        (folder / student).mkdir(parents=True)
    (folder / "alice" / "rope.py").write_text(apply_rope_only())
    (folder / "alice" / "alibi.py").write_text(alibi())
    (folder / "bob" / "rope.py").write_text(apply_rope_only())
    (folder / "mallory" / "rope-alibi.ipynb").write_text(json.dumps(cut_down(notebook, "alibi_slopes")))
    return folder
