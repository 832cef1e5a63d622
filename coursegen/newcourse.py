"""`coursegen new DIR`: write a new, minimal, working course (the template in coursegen/new_course/).

The template has one lesson in English and Chinese, one exercise with its reference, one catalogued
mistake with its hint, a public and a hidden check, a quiz with one generated question and its
oracle, a figure and a self-check; its README says what to edit, and STUDENTS.md (built from the
course: its notebooks, what they need, the self-check and the submission route) what students do. The stubs are generated from the
references, as `coursegen stubs` does. The course is written to a temporary folder beside DIR and
moved into place when complete.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.atomic import staged_folder

from .errors import ContentError
from .stubs import make_stub

TEMPLATE = Path(__file__).resolve().parent / "new_course"
GUIDE = "STUDENTS.md"  # the student guide, built from the course (`coursegen guide` rewrites it)


def write_new_course(dest: str | Path) -> list[Path]:
    """Write the template course into `dest` (which must not exist or be empty); the files written."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ContentError(str(dest), "exists and is not an empty folder; choose a new folder for the course")
    with staged_folder(dest, label="new") as staging:
        shutil.copytree(TEMPLATE, staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        for reference in sorted((staging / "solutions").glob("*.py")):
            if reference.name != "__init__.py":
                stub = make_stub(reference.read_text(encoding="utf-8"), reference.stem, f"solutions/{reference.name}")
                (staging / "exercises" / reference.name).write_text(stub, encoding="utf-8")
        (staging / GUIDE).write_text(guide_of(staging), encoding="utf-8")
    return sorted(p for p in dest.rglob("*") if p.is_file())


def guide_of(root: Path) -> str:
    """The student guide of the course at `root` (coursegen.student_guide), its cache kept outside it."""
    import tempfile

    from .loader import load_course
    from .student_guide import guide_markdown

    with tempfile.TemporaryDirectory(prefix="coursegen-guide-") as cache:
        return guide_markdown(load_course(root, cache_dir=Path(cache)))
