"""The quiz file format: structural mistakes are reported with file:line:column."""

from __future__ import annotations

import pytest

from coursegen.errors import ContentErrors
from coursegen.quiz.load import load_quiz


def errors_of(path) -> list[str]:
    with pytest.raises(ContentErrors) as info:
        load_quiz(path)
    return [str(e) for e in info.value.errors]


def test_fixture_quiz_loads_with_every_question_type(quiz_file):
    quiz = load_quiz(quiz_file).quiz
    assert {q.type for q in quiz.questions} == {
        "single",
        "multiple",
        "true_false",
        "numeric",
        "shape",
        "short",
        "matching",
    }


def test_unknown_field_is_reported_at_its_line(quiz_file, replace_in):
    replace_in(quiz_file, "    answer: false\n", "    answer: false\n    answr: true\n")
    lines = quiz_file.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "answr" in text)
    (error,) = errors_of(quiz_file)
    assert error.startswith(f"{quiz_file}:{line}:") and "unknown field 'answr'" in error


def test_single_choice_with_two_correct_options_is_an_error(quiz_file, replace_in):
    replace_in(
        quiz_file,
        "{text: {en: The position table, zh: 位置表}, ",
        "{text: {en: The position table, zh: 位置表}, correct: true, ",
    )
    assert any("exactly one option" in e for e in errors_of(quiz_file))


def test_unknown_question_type_names_the_allowed_types(quiz_file, replace_in):
    replace_in(quiz_file, "type: true_false", "type: yes_no")
    assert any("'type' must be one of single, multiple, true_false" in e for e in errors_of(quiz_file))


def test_generated_numeric_question_needs_a_tolerance(quiz_file, replace_in):
    replace_in(quiz_file, "    tolerance: {abs: 0}\n    decimals: 0\n", "    decimals: 0\n")
    assert any("needs a 'tolerance'" in e for e in errors_of(quiz_file))


def test_tolerance_takes_exactly_one_of_abs_and_rel(quiz_file, replace_in):
    replace_in(quiz_file, "tolerance: {abs: 0}\n    feedback", "tolerance: {abs: 0, rel: 0.1}\n    feedback")
    assert any("exactly one of 'abs' or 'rel'" in e for e in errors_of(quiz_file))


def test_fewer_than_twenty_variants_needs_a_reason(quiz_file, replace_in):
    replace_in(quiz_file, "      answer: tying_saved\n", "      answer: tying_saved\n      min_variants: 5\n")
    assert any("needs a 'reason'" in e for e in errors_of(quiz_file))


def test_empty_parameter_range_is_an_error(quiz_file, replace_in):
    replace_in(quiz_file, "S: {range: [16, 64], step: 16}", "S: {range: [64, 16]}")
    assert any("range [64, 16] is empty" in e for e in errors_of(quiz_file))
