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

from . import kinds
from .schema import GeneratedQuestion, Question, QuestionBase, Quiz


@dataclass(frozen=True)
class LoadedQuiz:
    quiz: Quiz
    doc: YamlDocument
    lesson: Lesson | None = None
    course: Course | None = None  # its quiz_gate settings; None: the engine's defaults
    root: Path | None = None  # the course it belongs to: where its answer functions and oracles come from

    @property
    def course_root(self) -> Path:
        """The root of the course the quiz belongs to (a quiz read on its own has none)."""
        if self.root is None:
            raise ValueError(f"{self.doc.file}: this quiz was read without its course (load_quiz(..., root=...))")
        return self.root

    def where(self, question_index: int | None = None, *path: str | int) -> Location:
        """The file:line:column of the quiz, one question, or a field inside it."""
        if question_index is None:
            return self.doc.location(path)
        return self.doc.location(("questions", question_index) + path)


class _QuizShell(Quiz):
    questions: list[dict]  # type: ignore[assignment]  # each validated on its own, see load_quiz


def _sub_document(doc: YamlDocument, prefix: tuple) -> YamlDocument:
    """The part of `doc` under `prefix`, with its positions, as a document of its own."""
    n = len(prefix)
    positions = {p[n:]: v for p, v in doc.positions.items() if p[:n] == prefix}
    scalars = {p[n:]: v for p, v in getattr(doc, "scalars", {}).items() if p[:n] == prefix}
    data = doc.data
    for part in prefix:
        data = data[part]
    try:
        return YamlDocument(doc.file, data, positions, scalars)
    except TypeError:  # an older YamlDocument without scalar positions
        return YamlDocument(doc.file, data, positions)


def load_quiz(
    path: str | Path,
    lesson: Lesson | None = None,
    display_name: str | None = None,
    course: Course | None = None,
    root: Path | None = None,
) -> LoadedQuiz:
    """Read and validate one quiz file (of the course at `root`, if given). Each question is
    validated against the model of its `type` (or GeneratedQuestion when it has `generate:`), so
    every error points at the exact line and column of the field."""
    doc = read_yaml(path, display_name)
    shell = validate(doc, _QuizShell)
    errors: list[ContentError] = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for index, data in enumerate(shell.questions):
        kind = None if "generate" in data else kinds.find(data.get("type"))
        if "generate" not in data and kind is None:
            where = doc.location(("questions", index, "type"))
            got = f"'{data.get('type')}'" if data.get("type") is not None else "nothing"
            errors.append(ContentError(where, f"'type' must be one of {', '.join(kinds.names())}; got {got}"))
            continue
        model: type[QuestionBase] = GeneratedQuestion if kind is None else kind.model
        try:
            question = validate(_sub_document(doc, ("questions", index)), model)
        except ContentErrors as exc:
            errors.extend(exc.errors)
            continue
        if question.id in seen:
            errors.append(
                ContentError(
                    doc.location(("questions", index, "id")),
                    f"question id '{question.id}' is already used by question {seen[question.id] + 1}",
                )
            )
        seen.setdefault(question.id, index)
        questions.append(question)
    if errors:
        raise ContentErrors(errors)
    quiz = Quiz(id=shell.id, lesson=shell.lesson, title=shell.title, questions=questions)
    return LoadedQuiz(quiz, doc, lesson, course, root)


def _display(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def course_quizzes(root: str | Path, lesson_ids: list[str] | None = None) -> list[LoadedQuiz]:
    """The quiz of every lesson (or of the given lessons) that declares `quiz:`, in course order."""
    from coursegen.plugin_loading import load_plugins

    root = Path(root)
    load_plugins(root)  # the course's answer functions and oracles: a plugin that fails is an error here
    course_path = root / "content" / "course.yaml"
    course = validate(read_yaml(course_path, _display(root, course_path)), Course)
    unknown = [i for i in lesson_ids or [] if i not in course.lessons]
    if unknown:
        raise ContentError(
            Location(_display(root, course_path)),
            f"no lesson '{unknown[0]}' in the course; lessons are: {', '.join(course.lessons)}",
        )
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
            loaded.append(load_quiz(quiz_path, lesson, _display(root, quiz_path), course, root))
        except ContentErrors as exc:
            errors.extend(exc.errors)
        except ContentError as exc:
            errors.append(exc)
    if errors:
        raise ContentErrors(errors)
    return loaded
