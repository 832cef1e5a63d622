"""The quality gate: each rule has a failing example."""

from __future__ import annotations

from coursegen.quiz.gate import verify_quizzes


def problems(course) -> list[str]:
    return verify_quizzes(course)


def test_fixture_course_passes_the_gate(course):
    assert problems(course) == []


def test_numeric_distractor_equal_to_the_answer_is_an_error(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "{value: 13, feedback", "{value: 30, feedback")
    assert any("distractor 30.0 (wrong-1) equals the answer 30.0" in p for p in problems(course))


def test_distractor_within_tolerance_is_an_error(course, replace_in):
    quiz = course / "content/quizzes/mini.yaml"
    replace_in(quiz, "answer: 30\n    tolerance: {abs: 0}", "answer: 30\n    tolerance: {abs: 0.5}")
    replace_in(quiz, "{value: 13, feedback", "{value: 30.4, feedback")
    assert any("equals the answer 30.0 within tolerance ±0.5" in p for p in problems(course))


def test_two_options_reading_the_same_is_an_error(course, replace_in):
    replace_in(
        course / "content/quizzes/mini.yaml",
        "{text: {en: The attention weights, zh: 注意力权重}",
        "{text: {en: The position table, zh: 注意力权重}",
    )
    assert any("two options read the same (en): 'The position table'" in p for p in problems(course))


def test_displayed_rounding_outside_its_own_tolerance_is_an_error(course, replace_in):
    quiz = course / "content/quizzes/mini.yaml"
    replace_in(
        quiz, "answer: 30\n    tolerance: {abs: 0}", "answer: 30.123456\n    decimals: 2\n    tolerance: {abs: 0.001}"
    )
    assert any("the displayed answer 30.12 is outside its own tolerance" in p for p in problems(course))


def test_generated_question_with_too_few_variants_is_an_error(course, replace_in):
    quiz = course / "content/quizzes/mini.yaml"
    replace_in(
        quiz,
        "        V: {choices: [1000, 5000, 32000, 50000]}\n        D: {choices: [64, 128, 256, 512, 768]}\n  - id: gen-choice",
        "        V: {choices: [1000, 5000]}\n        D: {choices: [64, 128]}\n  - id: gen-choice",
    )
    assert any("question 'gen-saved' yields 4 distinct valid variant(s)" in p for p in problems(course))


def test_declared_min_variants_with_a_reason_is_accepted(course, replace_in):
    quiz = course / "content/quizzes/mini.yaml"
    replace_in(
        quiz,
        "        V: {choices: [1000, 5000, 32000, 50000]}\n        D: {choices: [64, 128, 256, 512, 768]}\n  - id: gen-choice",
        "        V: {choices: [1000, 5000]}\n        D: {choices: [64, 128]}\n      min_variants: 4\n"
        "      reason: {en: Few sizes are realistic., zh: 现实的尺寸不多。}\n  - id: gen-choice",
    )
    assert problems(course) == []


def test_answer_that_does_not_compute_is_reported(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "D: {choices: [64, 128]}", "D: {choices: [-64, -128]}")
    assert any("the answer does not compute" in p for p in problems(course))


def test_uncovered_objective_is_an_error(course, replace_in):
    lesson = course / "content/lessons/mini.yaml"
    replace_in(lesson, "objectives:\n", "objectives:\n  - {en: Something never asked., zh: 从未考过的内容。}\n")
    assert any("no question covers objective 3" in p for p in problems(course))


def test_objective_number_beyond_the_lesson_is_an_error(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "objectives: [1, 2]", "objectives: [1, 7]")
    assert any("objective 7 does not exist" in p for p in problems(course))


def test_missing_chinese_translation_is_an_error(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", ', zh: "哪个矩阵把 $h$ 变成 logits？"', "")
    assert any("missing Chinese translation ('zh') at questions.0.text" in p for p in problems(course))


def test_fewer_than_eight_questions_is_an_error(course, replace_in):
    quiz = course / "content/quizzes/mini.yaml"
    text = quiz.read_text(encoding="utf-8")
    start, end = text.index("  - id: pick-many"), text.index("  - id: shp")  # removes 3 of 10
    quiz.write_text(text[:start] + text[end:], encoding="utf-8")
    assert any("needs at least 8 questions, found 7" in p for p in problems(course))


def test_problems_carry_file_line_and_column(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "{value: 13, feedback", "{value: 30, feedback")
    (problem,) = problems(course)
    assert problem.startswith("content/quizzes/mini.yaml:") and problem.split(":")[1].isdigit()


def test_unknown_latex_command_is_an_error(course, replace_in):
    replace_in(course / "content/quizzes/mini.yaml", "$10 \\\\times 3 = 30$.", "$10 \\\\timez 3 = 30$.")
    assert any("unknown LaTeX command '\\timez'" in p for p in problems(course))


def test_the_course_quizzes_pass_the_gate():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert verify_quizzes(root) == []


def test_every_lesson_of_the_course_has_a_quiz_with_eight_questions_three_generated():
    from pathlib import Path

    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.schema import GeneratedQuestion
    from coursegen.schema import Course
    from coursegen.yamlio import read_yaml, validate

    root = Path(__file__).resolve().parents[2]
    lessons = validate(read_yaml(root / "content/course.yaml"), Course).lessons
    quizzes = {q.quiz.lesson: q.quiz for q in course_quizzes(root)}
    assert set(quizzes) == set(lessons)
    for quiz in quizzes.values():
        assert len(quiz.questions) >= 8
        assert sum(isinstance(q, GeneratedQuestion) for q in quiz.questions) >= 3


def test_every_answer_function_is_documented_in_the_authoring_guide():
    from pathlib import Path

    from coursegen.quiz.answers import answer_functions

    repo = Path(__file__).resolve().parents[2]
    REGISTRY = answer_functions(repo)

    guide = (repo / "docs" / "authoring.md").read_text(encoding="utf-8")
    quizzes = guide[guide.index("## Quizzes") :]
    assert [name for name in REGISTRY if f"`{name}`" not in quizzes] == []
