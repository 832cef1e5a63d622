"""The search index: readable math in the text, the quiz's own title."""

from __future__ import annotations

from coursegen.loader import load_course
from coursegen.search import search_entries

QUIZ = "content/quizzes/alpha.yaml"


def _entries(course, kind: str, lang: str) -> list[dict]:
    return [e for e in search_entries(load_course(course.root)) if e["kind"] == kind and e["lang"] == lang]


def test_search_text_shows_math_without_latex_backslashes(course):
    texts = " ".join(e["text"] for e in _entries(course, "section", "en"))
    assert "\\" not in texts
    assert "W ∈ ℝ^(V × D)." in texts  # from $W \in \mathbb{R}^{V \times D}$.


def test_quiz_entry_uses_the_quiz_files_own_title(course):
    course.replace(QUIZ, "lesson: alpha\n", "lesson: alpha\ntitle: {en: Lookup drill, zh: 查表练习}\n")
    assert [e["title"] for e in _entries(course, "quiz", "en")] == ["Quiz: Lookup drill"]
    assert [e["title"] for e in _entries(course, "quiz", "zh")] == ["测验：查表练习"]


def test_quiz_entry_falls_back_to_the_lesson_title(course):
    lesson_title = _entries(course, "lesson", "en")[0]["title"]
    assert [e["title"] for e in _entries(course, "quiz", "en")] == [f"Quiz: {lesson_title}"]
