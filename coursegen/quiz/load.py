"""Read quiz files (and the lessons they belong to) through coursegen.yamlio.

`load_quiz(path)` validates one file against coursegen.quiz.schema.Quiz and keeps its
YamlDocument so later checks can point at the question's line. `course_quizzes(root)`
reads content/course.yaml and each lesson's quiz, in teaching order; it needs only
coursegen.yamlio and the schemas, so the quiz commands work on their own.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, Location
from coursegen.schema import Course, Lesson
from coursegen.yamlio import YamlDocument, read_yaml, validate

from .schema import Quiz


@dataclass(frozen=True)
class LoadedQuiz:
    quiz: Quiz
    doc: YamlDocument
    lesson: Lesson | None = None

    def where(self, question_index: int | None = None, *path: str | int) -> Location:
        """The file:line:column of the quiz, one question, or a field inside it."""
        if question_index is None:
            return self.doc.location(path)
        return self.doc.location(("questions", question_index) + path)


def load_quiz(path: str | Path, lesson: Lesson | None = None, display_name: str | None = None) -> LoadedQuiz:
    doc = read_yaml(path, display_name)
    return LoadedQuiz(validate(doc, Quiz), doc, lesson)


def _display(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def course_quizzes(root: str | Path, lesson_ids: list[str] | None = None) -> list[LoadedQuiz]:
    """The quiz of every lesson (or of the given lessons) that declares `quiz:`, in course order."""
    root = Path(root)
    course_path = root / "content" / "course.yaml"
    course = validate(read_yaml(course_path, _display(root, course_path)), Course)
    unknown = [i for i in lesson_ids or [] if i not in course.lessons]
    if unknown:
        raise ContentError(Location(_display(root, course_path)),
                           f"no lesson '{unknown[0]}' in the course; lessons are: {', '.join(course.lessons)}")
    errors: list[ContentError] = []
    loaded: list[LoadedQuiz] = []
    for lesson_id in course.lessons:
        if lesson_ids and lesson_id not in lesson_ids:
            continue
        lesson_path = root / "content" / "lessons" / f"{lesson_id}.yaml"
        try:
            lesson = validate(read_yaml(lesson_path, _display(root, lesson_path)), Lesson)
            if lesson.quiz is None:
                if lesson_ids:
                    raise ContentError(Location(_display(root, lesson_path)), f"lesson '{lesson_id}' has no 'quiz:'")
                continue
            quiz_path = root / "content" / "quizzes" / f"{lesson.quiz}.yaml"
            loaded.append(load_quiz(quiz_path, lesson, _display(root, quiz_path)))
        except ContentErrors as exc:
            errors.extend(exc.errors)
        except ContentError as exc:
            errors.append(exc)
    if errors:
        raise ContentErrors(errors)
    return loaded
