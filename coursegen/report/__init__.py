"""The class report: what the instructor reads before the next lecture.

    build_report(gradebook, out, root=ROOT, quiz_gradebooks=()) -> ReportSummary

reads, for the course at ROOT, the grading gradebook (grader/reporting/gradebook.py; older schema versions
are migrated when opened) and, optionally, quiz gradebooks written by `coursegen quiz grade
--gradebook`, and writes a static, offline, bilingual HTML report (coursegen/report/render.py). The numbers
come from classdata.py (exercises, misconceptions, problems) and stats.py + quizdata.py
(Moodle's quiz statistics); docs/instructors.md explains every one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from .catalogue import CatalogueItem


@dataclass(frozen=True)
class ReportSummary:
    students: int
    submissions: int
    files: int
    quizzes: int


def course_title(root: Path) -> dict[str, str]:
    from coursegen.schema import Course
    from coursegen.yamlio import read_yaml, validate

    path = Path(root) / "content" / "course.yaml"
    if not path.exists():
        return {"en": "Course", "zh": "课程"}
    course = validate(read_yaml(path, str(path)), Course)
    return {"en": course.title.en, "zh": course.title.zh or course.title.en}


def load_class(gradebook: Path, root: Path, assignment: str | None = None, definition: str | None = None):
    """The gradebook's runs of the course at `root` summarised (classdata.ClassData); with `assignment`, only the runs
    graded against one definition of it (shown_assignment.py, assignment_to_show)."""
    from grader.course import Course
    from grader.reporting.gradebook import Gradebook

    from .catalogue import read_catalogue
    from .classdata import summarise

    course = Course.load(root)
    EXERCISES = course.registry.exercises
    mistakes: Sequence[CatalogueItem] | None = read_catalogue(root, list(course.registry.modules))
    if mistakes is None:
        mistakes = course.catalogue()
    with Gradebook(gradebook, create=False, read_only=True) as book:
        runs = book.runs()
        stored = book.definitions()
        late_rows = book.lateness_rows()  # oldest first
    chosen = None
    graded = {r.get("assignment") for r in runs}
    if assignment is None and len(graded) == 1 and "" not in graded and None not in graded:
        assignment = graded.pop()  # every run was graded against one assignment: show it out of its maximum
    if assignment is not None:
        from .shown_assignment import assignment_to_show

        chosen, _ = assignment_to_show(runs, stored, assignment, definition, root, need_one=True)
        runs = [r for r in runs if r.get("assignment") == chosen.assignment and r.get("definition") == chosen.hash]
    data = summarise(runs, [(e.name, e.module) for e in EXERCISES], mistakes)
    data.definition = chosen
    if chosen is not None:  # what the late policy cost each student (grader/reporting/lateness.py)
        for row in late_rows:
            if row["assignment"] == chosen.assignment and row["definition"] == chosen.hash:
                data.lateness[row["student"]] = row
    from grader.reporting.proposals import propose

    data.proposals = propose(runs)  # beside the ranked misconceptions: what the catalogue lacks
    return data


def load_quizzes(paths: Sequence[Path], root: Path | None):
    from .quizdata import quiz_reports, read_quiz_results

    rows = [row for path in paths for row in read_quiz_results(path)]
    quizzes = {}
    if rows and root is not None and (Path(root) / "content" / "course.yaml").exists():
        from coursegen.quiz.load import course_quizzes

        quizzes = {loaded.quiz.id: loaded for loaded in course_quizzes(root)}
    return quiz_reports(rows, quizzes)


def build_report(
    gradebook: Path,
    out: Path,
    *,
    root: Path,
    quiz_gradebooks: Sequence[Path] = (),
    assignment: str | None = None,
    definition: str | None = None,
    similarity: Path | None = None,
    proposals: Path | None = None,
) -> ReportSummary:
    """`similarity`, `proposals`: the folders `coursegen similarity` and `coursegen mistakes propose`
    wrote, shown in the report's integrity and proposals sections (integrity.py)."""
    from .integrity import read_drafts, read_similarity
    from .render import render_report

    data = load_class(Path(gradebook), Path(root), assignment, definition)
    if similarity is not None:
        data.similarity = read_similarity(Path(similarity), Path(out))
    if proposals is not None:
        data.drafts = read_drafts(Path(proposals), Path(out))
    quizzes = load_quizzes([Path(p) for p in quiz_gradebooks], Path(root))
    files = render_report(
        Path(out),
        data=data,
        quizzes=quizzes,
        course_title=course_title(Path(root)),
        gradebook_name=Path(gradebook).name,
    )
    return ReportSummary(len(data.students), len(data.latest), files, len(quizzes))
