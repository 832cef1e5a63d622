"""`coursegen export classroom`: a GitHub Classroom starter repository for one lesson.

    DIR/
      <lesson>.ipynb                    the student notebook (stubs, self-checks)
      README.md                         for students, English and Chinese
      .github/workflows/classroom.yml   on push: install .autograder, `coursegen grade`, summary + JUnit
      .autograder/                      pip-installable feedback grader: public checks of this
                                        lesson, recorded reference answers, no solutions

The workflow runs in the student's own repository, which the student can edit, so it
gives FEEDBACK, never the grade: only public checks, expected values precomputed at
export time (grader/replay/). Solutions, mistake hints and hidden checks stay home.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .files import ExportError, render, staged_directory, write_text
from .package import LessonExercises, lesson_exercises, write_grader_package
from .record import record_and_replay

PYTHON_VERSION = "3.11"
RESULT_FILE = "feedback.json"
MARKDOWN_FILE = "feedback.md"
JUNIT_FILE = "feedback.xml"
PACKAGE_DIR = ".autograder"
WORKFLOW_PATH = ".github/workflows/classroom.yml"
RECORDING_DIR = "coursegen_feedback/recording"


def torch_version(requires: list[str] | None = None) -> str | None:
    """The torch release the recording was made with, without a local tag ("2.13.0+cpu" -> "2.13.0"),
    for a course that requires torch (`requires`: the course's requirements; None: any course);
    None for a course without torch (its exports install no torch)."""
    from grader import course_requires

    if requires is not None and not course_requires.uses(requires, "torch"):
        return None
    try:
        return version("torch").split("+", 1)[0]
    except PackageNotFoundError:
        raise ExportError(
            "the course requires torch (requires: in content/course.yaml), which is not installed here: "
            "install it (e.g. pip install torch) to export, so that the export pins the release it was checked with"
        ) from None


def grade_commands(notebook: str, lang: str) -> list[str]:
    """The commands the workflow runs (the student README shows the same): grade once to JSON,
    then write the Markdown summary and the JUnit XML from that one result."""
    return [
        f"coursegen grade {notebook} --lang {lang} --format json -o {RESULT_FILE}",
        f"coursegen report {RESULT_FILE} --markdown {MARKDOWN_FILE} --junit {JUNIT_FILE}",
    ]


@dataclass(frozen=True)
class ClassroomExport:
    out_dir: Path
    notebook: str
    checks: int  # public checks shipped (each verified against the recording)


def export_classroom(root: Path, lesson_id: str, out_dir: Path, *, lang: str = "en") -> ClassroomExport:
    """Write the starter repository of `lesson_id` into `out_dir` (atomically)."""
    from ..loader import load_course
    from ..notebooks import notebook_relpath, render_notebooks

    root = Path(root).resolve()
    loaded = load_course(root)
    if lang not in loaded.course.languages:
        raise ExportError(f"language {lang!r} is not one of the course's languages {loaded.course.languages}")
    lesson = lesson_exercises(loaded, lesson_id)
    notebooks = render_notebooks(loaded, students=True, solutions=True, lessons=[lesson_id])
    notebook_name = f"{lesson_id}.ipynb"

    with staged_directory(out_dir) as staging, tempfile.TemporaryDirectory(prefix="coursegen-record-") as scratch:
        (staging / notebook_name).write_bytes(notebooks[notebook_relpath(lesson_id, lang)])
        package = staging / PACKAGE_DIR
        write_text(package / "coursegen_feedback" / "__init__.py", render("feedback_cli.py.j2", lesson_id=lesson_id))
        write_grader_package(root, package, lesson, public_only=True)  # its dependencies include the module above
        write_text(package / "README.md", render("autograder_README.md.j2", lesson_id=lesson_id))

        solution = Path(scratch) / f"{lesson_id}-solution.ipynb"
        solution.write_bytes(notebooks[notebook_relpath(lesson_id, lang, solution=True)])
        checks = _record_and_verify(root, solution, package, lesson)

        context = dict(
            lesson_id=lesson_id,
            title_en=lesson.title_en,
            title_zh=lesson.title_zh,
            notebook=notebook_name,
            exercises=lesson.names,
            python_version=PYTHON_VERSION,
            torch_version=torch_version(list(loaded.course.requires)),
            grade_commands=grade_commands(notebook_name, lang),
            result_file=RESULT_FILE,
            markdown_file=MARKDOWN_FILE,
            junit_file=JUNIT_FILE,
        )
        write_text(staging / "README.md", render("student_README.md.j2", **context))
        write_text(staging / WORKFLOW_PATH, render("classroom.yml.j2", **context))
        write_text(staging / ".gitignore", render("gitignore.j2", **context))
    return ClassroomExport(Path(out_dir), notebook_name, checks)


def _record_and_verify(root: Path, solution: Path, package: Path, lesson: LessonExercises) -> int:
    """Record the reference's answers, then replay them on the shipped checks; all must pass."""
    steps = record_and_replay(
        solution, package / RECORDING_DIR, root / "grader" / "checks", package / "grader" / "checks", lesson.names, root
    )
    recorded, replayed = steps["record"], steps["replay"]
    failed = [o["name"] for o in recorded if not o["passed"]]
    if not recorded or failed:
        raise ExportError(
            f"lesson {lesson.lesson_id!r}: the solution notebook fails public checks "
            f"{', '.join(failed) or '(none ran)'}; fix the course first (`coursegen verify`)"
        )
    failed = [f"{o['name']}: {o['output'].splitlines()[0] if o['output'] else ''}" for o in replayed if not o["passed"]]
    if failed or len(replayed) != len(recorded):
        raise ExportError(
            f"lesson {lesson.lesson_id!r}: these public checks cannot be precomputed for "
            "students (their reference calls differ between runs):\n  " + "\n  ".join(failed)
        )
    return len(replayed)
