"""The first course (the repository's own content/, exercises/, solutions/) as the engine loads
it: its registry and mistake catalogue, for the tests of the first course. Engine tests use
courses of their own (tests/courses/, the `coursegen new` course)."""

from __future__ import annotations

from pathlib import Path

from grader.course import Course

REPO = Path(__file__).resolve().parents[1]
COURSE = Course.load(REPO)
EXERCISES = COURSE.registry.exercises
BY_NAME = COURSE.registry.by_name
MODULES = COURSE.registry.modules
exercises_in = COURSE.registry.exercises_in
catalogue = COURSE.catalogue
for_target = COURSE.for_target


def question(question_id: str) -> tuple:
    """(loaded quiz, index, question) of one of this course's quiz questions, by its id."""
    from coursegen.quiz.load import course_quizzes

    for loaded in course_quizzes(REPO):
        for index, found in enumerate(loaded.quiz.questions):
            if found.id == question_id:
                return loaded, index, found
    raise LookupError(question_id)
