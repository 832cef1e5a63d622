"""`coursegen export classroom`: a GitHub Classroom starter repository for one lesson or assignment.

    DIR/
      <lesson>.ipynb                    the student notebook (stubs, self-checks); one per lesson
                                        that holds exercises of the assignment (`--assignment ID`)
      README.md                         for students, English and Chinese
      .github/workflows/classroom.yml   on push: install .autograder, `coursegen grade`, summary + JUnit
      .autograder/                      pip-installable feedback grader: public checks of these
                                        exercises, recorded reference answers, no solutions

`--lesson L` grades the notebook `L.ipynb`. `--assignment ID` (content/course.yaml `assignments:`,
which may span lessons) grades EVERY .py and .ipynb of the repository (outside hidden folders) as
`coursegen grade --assignment ID` grades one student's folder: each exercise scored once, from the
file that scored best on it (grader.reporting.assignments.combine); the package carries the
assignment's public part (`public_part`: each public check worth what it is worth in the whole
assignment) in exercises/assignments.json, since it has no course.yaml.

The workflow runs in the student's own repository, which the student can edit, so it
gives FEEDBACK, never the grade: only public checks, expected values precomputed at
export time (grader/replay/). Solutions, mistake hints and hidden checks stay home.
"""

from __future__ import annotations

import json
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
WORK_DIR = ".feedback"  # an assignment's grading folder in the repository (hidden: never graded itself)
STUDENT_FOLDER = "submission"  # the student's folder in it: the student id of the feedback


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


def grade_commands(notebook: str, lang: str, assignment: str | None = None) -> list[str]:
    """The commands the workflow runs (the student README shows the same): grade once to JSON,
    then write the Markdown summary and the JUnit XML from that one result. With `assignment`:
    every .py and .ipynb outside hidden folders is copied (paths kept) into one student folder
    of a batch, graded with `--assignment`, as `coursegen grade --assignment` grades a student."""
    report = f"coursegen report {RESULT_FILE} --markdown {MARKDOWN_FILE} --junit {JUNIT_FILE}"
    if assignment is None:
        return [f"coursegen grade {notebook} --lang {lang} --format json -o {RESULT_FILE}", report]
    student = f"{WORK_DIR}/batch/{STUDENT_FOLDER}"
    return [
        f"rm -rf {WORK_DIR} && mkdir -p {student}",
        "find . -path './.*' -prune -o -type f \\( -name '*.py' -o -name '*.ipynb' \\) -print "
        f"| tar -cf - -T - | tar -xf - -C {student}",
        f"coursegen grade {WORK_DIR}/batch --assignment {assignment} --lang {lang} --format json -o {RESULT_FILE} "
        f"--gradebook {WORK_DIR}/gradebook.sqlite",
        report,
    ]


@dataclass(frozen=True)
class ClassroomExport:
    out_dir: Path
    notebook: str
    checks: int  # public checks shipped (each verified against the recording)


def export_classroom(
    root: Path, lesson_id: str | None, out_dir: Path, *, lang: str = "en", assignment_id: str | None = None
) -> ClassroomExport:
    """Write the starter repository of `lesson_id`, or of the course assignment `assignment_id`,
    into `out_dir` (atomically)."""
    from grader.reporting.assignments import ASSIGNMENTS_JSON, check_points, public_part

    from ..loader import load_course
    from ..notebooks import notebook_relpath, render_notebooks
    from .package import assignment_exercises, expected_files

    root = Path(root).resolve()
    loaded = load_course(root)
    if lang not in loaded.course.languages:
        raise ExportError(f"language {lang!r} is not one of the course's languages {loaded.course.languages}")
    if assignment_id is None and lesson_id is not None:
        unit = lesson_exercises(loaded, lesson_id)
        definition = None
        lessons = [(lesson_id, unit.names)]
    else:
        unit, definition = assignment_exercises(loaded, lesson_id, assignment_id)
        wanted = set(definition.names)
        lessons = [
            (le.id, tuple(e.name for e in le.exercises if e.name in wanted))
            for le in loaded.lessons
            if wanted & {e.name for e in le.exercises}
        ]
    notebooks = render_notebooks(loaded, students=True, solutions=True, lessons=[lid for lid, _ in lessons])
    names = [f"{lid}.ipynb" for lid, _ in lessons]
    label = {"label_en": "assignment", "label_zh": "作业"} if definition else {"label_en": "lesson", "label_zh": "本课"}

    with staged_directory(out_dir) as staging, tempfile.TemporaryDirectory(prefix="coursegen-record-") as scratch:
        for (lid, _), name in zip(lessons, names):
            (staging / name).write_bytes(notebooks[notebook_relpath(lid, lang)])
        package = staging / PACKAGE_DIR
        write_text(
            package / "coursegen_feedback" / "__init__.py",
            render("feedback_cli.py.j2", lesson_id=unit.lesson_id, **label),
        )
        # its dependencies include the module above
        write_grader_package(root, package, unit, public_only=True, kind=label["label_en"])
        write_text(package / "README.md", render("autograder_README.md.j2", lesson_id=unit.lesson_id, **label))

        checks = 0
        for lid, exercises in lessons:
            solution = Path(scratch) / f"{lid}-solution.ipynb"
            solution.write_bytes(notebooks[notebook_relpath(lid, lang, solution=True)])
            part = LessonExercises(lid, unit.title_en, unit.title_zh, exercises, unit.modules)
            checks += _record_and_verify(root, solution, package, part)
        if definition is not None:
            public = public_part(definition, check_points(package / "grader" / "checks"))
            write_text(
                package / "exercises" / ASSIGNMENTS_JSON,
                json.dumps({public.assignment: public.to_json()}, sort_keys=True) + "\n",
            )

        context = dict(
            lesson_id=unit.lesson_id,
            assignment=definition.assignment if definition else None,
            title_en=unit.title_en,
            title_zh=unit.title_zh,
            notebook=names[0],
            notebooks=names,
            modules=expected_files(loaded, unit.names)["modules"],
            exercises=unit.names,
            python_version=PYTHON_VERSION,
            torch_version=torch_version(list(loaded.course.requires)),
            grade_commands=grade_commands(names[0], lang, definition.assignment if definition else None),
            result_file=RESULT_FILE,
            markdown_file=MARKDOWN_FILE,
            junit_file=JUNIT_FILE,
            work_dir=WORK_DIR,
            **label,
        )
        write_text(staging / "README.md", render("student_README.md.j2", **context))
        write_text(staging / WORKFLOW_PATH, render("classroom.yml.j2", **context))
        write_text(staging / ".gitignore", render("gitignore.j2", **context))
    return ClassroomExport(Path(out_dir), ", ".join(names), checks)


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
