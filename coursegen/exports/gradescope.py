"""`coursegen export gradescope`: a Gradescope autograder zip for one assignment.

Gradescope's specification: `setup.sh` and `run_autograder` at the root of the zip; the
zip is extracted to /autograder/source, the submission arrives in /autograder/submission,
the results go to /autograder/results/results.json (score, tests[name, score, max_score,
status, output, visibility]; hidden checks "after_due_date").

    setup.sh          once per image: Python >= 3.11, CPU torch (a course that requires it), `pip install package/`
    run_autograder    per submission: autograde.py with the venv's Python
    autograde.py      grades EVERY .py/.ipynb uploaded as `coursegen grade --assignment` grades one
                      student's folder (each exercise from the file that scored best on it), writes
                      results.json atomically
    assignment.json   the assignment's id, its definition (exercises, points, hash), feedback
                      language, title, and what it expects: its lessons' notebooks, its module files
    package/          the full grader: checks (hidden included), solutions, mistakes

`--lesson L` exports the assignment of the lesson's exercises (id L); `--assignment ID` one of
content/course.yaml's `assignments:`, which may span lessons. Gradescope's container is out of
students' reach, so the full grader ships. The zip is deterministic: sorted entries, fixed
timestamps and modes.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .classroom import torch_version
from .files import TEMPLATES, ExportError, copy_file, deterministic_zip, render, write_text
from .package import assignment_exercises, expected_files, write_grader_package

VENV = "/opt/coursegen"
EXECUTABLES = {"setup.sh", "run_autograder"}


@dataclass(frozen=True)
class GradescopeExport:
    zip_path: Path
    entries: int


def export_gradescope(
    root: Path, lesson_id: str | None, zip_path: Path, *, lang: str = "en", assignment_id: str | None = None
) -> GradescopeExport:
    """Write the autograder zip of `lesson_id`, or of the course assignment `assignment_id`, to
    `zip_path` (complete or not at all). Either way the zip grades one assignment definition
    (grader/reporting/assignments.py, in assignment.json): its exercises, out of its maximum, whatever
    the submission defines or its metadata lists. A lesson is the assignment of its exercises."""
    from ..loader import load_course

    root = Path(root).resolve()
    zip_path = Path(zip_path)
    if zip_path.suffix != ".zip":
        raise ExportError(f"{zip_path}: Gradescope expects a .zip file; name the output *.zip")
    if (lesson_id is None) == (assignment_id is None):
        raise ExportError("give --lesson ID or --assignment ID (one of them)")
    loaded = load_course(root)
    if lang not in loaded.course.languages:
        raise ExportError(f"language {lang!r} is not one of the course's languages {loaded.course.languages}")
    lesson, definition = assignment_exercises(loaded, lesson_id, assignment_id)
    name = lesson.lesson_id
    context = dict(assignment_id=name, venv=VENV, torch_version=torch_version(list(loaded.course.requires)))
    assignment = {
        "assignment": name,
        "exercises": list(definition.names),
        "definition": definition.to_json(),
        "lang": lang,
        "expects": expected_files(loaded, definition.names),
        "title": {"en": lesson.title_en, "zh": lesson.title_zh},
    }

    with tempfile.TemporaryDirectory(prefix="coursegen-gradescope-") as scratch:
        tree = Path(scratch)
        write_text(tree / "setup.sh", render("setup.sh.j2", **context), executable=True)
        write_text(tree / "run_autograder", render("run_autograder.j2", **context), executable=True)
        copy_file(TEMPLATES / "autograde.py", tree / "autograde.py")
        write_text(
            tree / "assignment.json", json.dumps(assignment, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        )
        write_grader_package(root, tree / "package", lesson, public_only=False)
        entries = sum(1 for p in tree.rglob("*") if p.is_file())
        deterministic_zip(tree, zip_path, executables=EXECUTABLES)
    return GradescopeExport(zip_path, entries)
