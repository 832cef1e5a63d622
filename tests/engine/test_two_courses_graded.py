"""Two courses graded in one process through the grader's API (grader.running.grade), each handed its own
course value: every submission is graded against its course's checks, references and catalogued
mistakes, with no course found from global state (the working folder, an active root)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from grader.course import Course
from grader.running.grade import grade_submissions, new_seed, result_from
from grader.reporting.results import SubmissionResult
from grader.reading.submission import load_submission
from tests.nonempty import nonempty

TESTS = Path(__file__).resolve().parents[1]
NUMERICS = TESTS / "courses" / "numerics"
STATISTICS = TESTS / "courses" / "statistics"

pytestmark = pytest.mark.slow


def copy(course: Path, dest: Path) -> Path:
    shutil.copytree(course, dest, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    return dest


def check_names(course: Course, module: str) -> set[str]:
    """The checks written in the course's grader/checks/test_<module>.py, read from the file."""
    text = (course.root / "grader" / "checks" / f"test_{module}.py").read_text(encoding="utf-8")
    return set(re.findall(r"^def (test_\w+)\(", text, re.MULTILINE))


def with_mistake(course: Course, module: str, source: str) -> str:
    """The module's reference with one catalogued mistake appended (and the imports of its file)."""
    mistakes = (course.root / "solutions" / "mistakes" / f"{module}.py").read_text(encoding="utf-8")
    imports = [
        line
        for line in mistakes.splitlines()
        if line.startswith(("import ", "from ")) and "grader" not in line and "__future__" not in line
    ]
    reference = (course.root / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    return "\n".join([reference, *imports, source])


def grade(course: Course, folder: Path) -> dict[str, SubmissionResult]:
    """Each module's reference, its stub and the reference with each catalogued mistake, graded in
    one session of `course`; results by name (`<module>/reference`, `<module>/stub`, `<mistake id>`)."""
    files: dict[str, Path] = {}
    for module in course.registry.modules:
        for name, text in (
            ("reference", (course.root / "solutions" / f"{module}.py").read_text(encoding="utf-8")),
            ("stub", (course.root / "exercises" / f"{module}.py").read_text(encoding="utf-8")),
            *((mistake.id, with_mistake(course, module, mistake.source)) for mistake in course.catalogue(module)),
        ):
            path = folder / name.replace("/", "_") / f"{module}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            files[f"{module}/{name}" if name in ("reference", "stub") else name] = path
    submissions = {key: load_submission(path, course) for key, path in files.items()}
    outcomes: dict[str, list] = {}
    grade_submissions(list(submissions.items()), outcomes.__setitem__, course=course, seed=new_seed())
    return {
        key: result_from(submission, outcomes[key], student=key, name=key, lang="en")
        for key, submission in submissions.items()
    }


def test_two_courses_are_graded_in_one_process_each_against_its_own_checks_and_mistakes(tmp_path, monkeypatch):
    numerics = Course.load(copy(NUMERICS, tmp_path / "numerics"))
    statistics = Course.load(copy(STATISTICS, tmp_path / "statistics"))
    unrelated = tmp_path / "unrelated"
    unrelated.mkdir()
    monkeypatch.chdir(unrelated)  # no course to find from the working folder (the engine keeps no active course)

    for turn, course in enumerate((statistics, numerics, statistics)):  # and back: nothing of the other is left
        results = grade(course, tmp_path / f"submissions-{turn}")
        for module in nonempty(course.registry.modules):
            reference, stub = results[f"{module}/reference"], results[f"{module}/stub"]
            assert reference.max_score > 0 and reference.score == reference.max_score, reference.tests
            assert stub.score == 0 and stub.max_score == reference.max_score, stub.tests
            # the checks that ran are the ones this course's checks file defines
            assert {t.name.split("[")[0] for t in reference.tests} == check_names(course, module)
            for mistake in course.catalogue(module):
                caught = [t for t in results[mistake.id].tests if t.status == "failed"]
                assert caught, f"{mistake.id} is not caught"
                assert any(mistake.hint["en"] in t.output for t in caught), [t.output for t in caught]
                assert all(set(t.mistakes) <= {m.id for m in course.catalogue()} for t in caught)
