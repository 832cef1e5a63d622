"""One test per kind of content mistake: each asserts the message and its file:line:column."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


ALPHA = "content/lessons/alpha.yaml"
BETA = "content/lessons/beta.yaml"
COURSE = "content/course.yaml"


def test_the_fixture_course_has_no_errors(course):
    assert course.errors() == []


def test_malformed_yaml_is_reported_where_the_parser_stopped(course):
    course.replace(ALPHA, "  en: Ids index rows", "  en: Ids: index rows")  # an unquoted ': ' in a value
    assert course.errors() == [
        f"{course.position(ALPHA, ': index')}: invalid YAML: mapping values are not allowed here "
        "(a value containing ': ' must be quoted or written as a '|' block)"
    ]


def test_unclosed_bracket_is_malformed_yaml(course):
    course.replace(ALPHA, "summary:\n  en: Ids", "summary:\n  en: [Ids")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(f"{ALPHA}:") and "invalid YAML" in errors[0]


def test_duplicate_yaml_key_is_an_error(course):
    course.replace(ALPHA, "summary:\n", "title: {en: Again, zh: 再次}\nsummary:\n")
    errors = course.errors()
    assert len(errors) == 1
    assert "duplicate key" in errors[0] and errors[0].startswith(f"{ALPHA}:")


def test_misspelt_key_names_the_field_and_suggests_the_right_one(course):
    course.replace(ALPHA, "key_terms:", "key_term:")
    assert course.errors() == [
        f"{course.position(ALPHA, 'key_term:')}: unknown field 'key_term': did you mean 'key_terms'? "
        "(expected one of: id, title, summary, objectives, sections, key_terms, exercises, quiz, "
        "incomplete_translation, in_class_questions, experiments, claims)"
    ]


def test_unknown_key_inside_a_block_is_reported_at_the_key(course):
    course.replace(
        ALPHA, "        caption: {en: Build a table", "        colour: red\n        caption: {en: Build a table"
    )
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(ALPHA, "colour: red"))
    assert "unknown field 'colour'" in errors[0]


def test_unknown_block_kind_lists_the_kinds(course):
    course.replace(BETA, "      - kind: text", "      - kind: txt")
    errors = course.errors()
    assert errors == [
        f"{course.position(BETA, 'kind: txt')}: unknown block kind 'txt' (expected one of: text, note, code, figure)"
    ]


def test_missing_required_field_is_reported_at_its_parent(course):
    course.replace(
        BETA, "summary:\n  en: RoPE rotates pairs of query and key dimensions.\n  zh: RoPE 旋转查询和键的维度对。\n", ""
    )
    errors = course.errors()
    assert errors == [f"{BETA}:1:1: missing required field 'summary'"]


def test_missing_required_field_in_a_block(course):
    course.replace(ALPHA, "        id: second\n", "")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0] == f"{course.position(ALPHA, 'kind: code', occurrence=2)}: missing required field 'id'"


def test_missing_translation_is_an_error(course):
    course.replace(BETA, "        zh: 每个维度对旋转 $p \\theta_i$。\n", "")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(BETA, "kind: text"))
    assert "missing translation: 'zh'" in errors[0]


def test_missing_translation_is_allowed_in_a_lesson_marked_incomplete(course):
    course.replace(BETA, "        zh: 每个维度对旋转 $p \\theta_i$。\n", "")
    course.replace(BETA, "id: beta\n", "id: beta\nincomplete_translation: true\n")
    assert course.errors() == []


def test_lesson_listed_in_course_yaml_without_a_file(course):
    course.replace(COURSE, "  - beta\n", "  - beta\n  - gamma\n")
    assert course.errors() == [
        f"{course.position(COURSE, 'gamma')}: lesson 'gamma' is listed but content/lessons/gamma.yaml does not exist"
    ]


def test_lesson_id_must_match_its_file_name(course):
    course.replace(BETA, "id: beta\n", "id: betta\n")
    assert course.errors() == [f"{BETA}:1:1: lesson id 'betta' does not match its file name (expected 'beta')"]


def test_duplicated_section_id(course):
    course.replace(BETA, "  - id: rope\n    title: {en: RoPE,", "  - id: rope\n    title: {en: RoPE,")
    course.replace(
        BETA,
        "key_terms:",
        "  - id: rope\n    title: {en: Again, zh: 再次}\n    blocks:\n      - {kind: text, en: x, zh: 叉}\nkey_terms:",
    )
    errors = course.errors()
    assert errors == [
        f"{course.position(BETA, 'id: rope', occurrence=2)}: duplicated section id 'rope' "
        f"(first used at line {course.position(BETA, 'id: rope').split(':')[1]})"
    ]


def test_duplicated_block_id(course):
    course.replace(ALPHA, "        id: second\n", "        id: first\n")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(ALPHA, "id: first", occurrence=2))
    assert "duplicated block id 'first'" in errors[0]


def test_duplicated_key_term_id_across_lessons(course):
    course.replace(BETA, "  - id: rope\n    term:", "  - id: embedding\n    term:")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(BETA, "id: embedding"))
    assert "duplicated key term id 'embedding' (already defined in lesson 'alpha'" in errors[0]


def test_broken_link_to_a_lesson(course):
    course.replace(ALPHA, "[the next lesson](lesson:beta#rope)", "[the next lesson](lesson:gamma)")
    assert course.errors() == [
        f"{course.position(ALPHA, 'lesson:gamma')}: broken link 'lesson:gamma': no lesson 'gamma' in course.yaml"
    ]


def test_broken_link_to_a_section(course):
    course.replace(ALPHA, "参见[下一课](lesson:beta#rope)", "参见[下一课](lesson:beta#ropes)")
    assert course.errors() == [
        f"{course.position(ALPHA, 'lesson:beta#ropes')}: broken link "
        "'lesson:beta#ropes': lesson 'beta' has no section 'ropes'"
    ]


def test_broken_link_to_a_term_quiz_and_exercise(course):
    course.replace(
        BETA,
        "Each pair is rotated by $p \\theta_i$.",
        "See [t](term:nope), [q](quiz:beta) and [e](exercise:apply_ropes).",
    )
    errors = course.errors()
    assert errors == [
        f"{course.position(BETA, 'term:nope')}: broken link 'term:nope': no key term 'nope' in any lesson",
        f"{course.position(BETA, 'quiz:beta')}: broken link 'quiz:beta': lesson 'beta' has no quiz",
        f"{course.position(BETA, 'exercise:apply_ropes')}: broken link 'exercise:apply_ropes': "
        "no exercise 'apply_ropes' in exercises/registry.py",
    ]


def test_unknown_link_scheme_is_an_error(course):
    course.replace(ALPHA, "[term](term:embedding)", "[term](trem:embedding)")
    errors = course.errors()
    assert len(errors) == 1 and "unknown link kind 'trem:'" in errors[0]
    assert errors[0].startswith(course.position(ALPHA, "trem:embedding"))


def test_unknown_latex_command_is_reported_at_the_command(course):
    course.replace(BETA, "Each pair is rotated by $p \\theta_i$.", "Each pair is rotated by $p \\sofmax_i$.")
    assert course.errors() == [
        f"{course.position(BETA, chr(92) + 'sofmax')}: unknown LaTeX command "
        "'\\sofmax' (not supported by the MathML converter)"
    ]


def test_unknown_latex_command_in_a_display_block(course):
    course.replace(ALPHA, "y = W[\\text{ids}]", "y = \\softmax(W[\\text{ids}])")
    assert course.errors() == [
        f"{course.position(ALPHA, chr(92) + 'softmax')}: unknown LaTeX command "
        "'\\softmax' (not supported by the MathML converter)"
    ]


def test_unbalanced_braces_in_math(course):
    course.replace(BETA, "旋转 $p \\theta_i$", "旋转 $p \\theta_{i$")
    errors = course.errors()
    assert len(errors) == 1 and "unbalanced braces in math" in errors[0]
    assert errors[0].startswith(f"{BETA}:")


def test_math_left_as_text_is_reported_where_it_starts(course):
    course.replace(BETA, "旋转 $p \\theta_i$", "旋转 $p \\theta_i$2 和 $q$")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(f"{course.position(BETA, '$p', occurrence=2)}: math left as plain text: '$p")


def test_math_in_a_table_cell_is_converted_and_accepted(course):
    course.replace(
        BETA,
        "zh: 每个维度对旋转 $p \\theta_i$。",
        "zh: |\n          旋转。\n\n          | $p$ | 2 |\n          |---|---|\n          | $q$ = 3 | x |\n",
    )
    assert course.errors() == []


def test_alibi_head_index_out_of_range_is_reported_at_the_index(course):
    course.replace(
        BETA,
        "figure: rope_rotation\n        params: {positions: 4}",
        "figure: alibi_bias\n        params: {n_heads: 4, heads: [0, 9]}",
    )
    assert course.errors() == [
        f"{course.position(BETA, '9]')}: figure 'alibi_bias': head index 9 is not an integer from 0 to 3 (n_heads is 4)"
    ]


def test_alibi_with_too_many_heads_to_draw_asks_for_a_selection(course):
    course.replace(
        BETA,
        "figure: rope_rotation\n        params: {positions: 4}",
        "figure: alibi_bias\n        params: {n_heads: 16}",
    )
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(f"{course.position(BETA, 'n_heads: 16')}: figure 'alibi_bias': at most 8 heads")


def test_unknown_figure_parameter(course):
    course.replace(BETA, "params: {positions: 4}", "params: {positons: 4}")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(BETA, "positons"))
    assert "unknown parameter 'positons' for figure 'rope_rotation'" in errors[0]


def test_figure_parameter_of_the_wrong_type(course):
    course.replace(BETA, "params: {positions: 4}", "params: {positions: four}")
    errors = course.errors()
    assert len(errors) == 1
    assert "parameter 'positions' of figure 'rope_rotation' must be int, got str 'four'" in errors[0]


def test_unknown_exercise_name(course):
    course.replace(BETA, "  - name: apply_rope", "  - name: apply_ropee")
    errors = course.errors()
    assert len(errors) == 1
    assert errors[0].startswith(course.position(BETA, "name: apply_ropee"))
    assert "unknown exercise 'apply_ropee'" in errors[0]


def test_missing_quiz_file(course):
    course.path("content/quizzes/alpha.yaml").unlink()
    assert course.errors() == [
        f"{course.position(ALPHA, 'quiz: alpha')}: quiz 'alpha' not found: expected the file content/quizzes/alpha.yaml"
    ]


def test_syntax_error_in_a_code_example(course):
    course.replace(ALPHA, 'print("row 1:", table[1])', 'print("row 1:", table[1]')
    errors = course.errors()
    assert len(errors) == 1
    assert "syntax error in code example 'second'" in errors[0]
    assert errors[0].startswith(f"{ALPHA}:{course.position(ALPHA, 'print(' + chr(34) + 'row 1').split(':')[1]}:")


def test_several_mistakes_are_reported_together_sorted_by_place(course):
    course.replace(BETA, "$p \\theta_i$.", "$p \\sofmax_i$.")
    course.replace(ALPHA, "key_terms:", "key_term:")
    errors = course.errors()
    assert len(errors) == 2
    assert errors[0].startswith(ALPHA) and errors[1].startswith(BETA)


def _borrowing_env() -> dict:
    """The mini course has no exercises/ of its own: it borrows the first course's (the repository's)."""
    import os

    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def test_a_course_without_an_exercise_registry_is_a_content_error_not_a_traceback(course):
    import os
    import shutil

    shutil.rmtree(course.root / "exercises")  # a folder whose lessons name exercises it does not have
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "check", "--root", str(course.root)],
        capture_output=True,
        text=True,
        cwd=course.root.parent,
        env=env,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lesson = course.read(ALPHA)
    line = lesson[: lesson.index("- name: embedding_lookup")].count("\n") + 1
    assert result.stderr.splitlines()[0].startswith(f"{ALPHA}:{line}:"), result.stderr
    assert result.stderr.splitlines()[0].endswith(
        "unknown exercise 'embedding_lookup': the course has no exercises/registry.py naming its exercises "
        "(give --root the course folder, or run in it)"
    )


def test_check_command_prints_errors_on_stderr_and_exits_1(course):
    course.replace(BETA, "$p \\theta_i$.", "$p \\sofmax_i$.")
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "check", "--root", str(course.root)],
        capture_output=True,
        text=True,
        cwd=course.root.parent,
        env=_borrowing_env(),
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        f"{course.position(BETA, chr(92) + 'sofmax')}: unknown LaTeX "
        "command '\\sofmax' (not supported by the MathML converter)"
    )


def test_check_command_checks_the_quiz_gate_rules_too(course):
    # With a gate of 8 questions the mini course loads, but build would refuse its two-question quiz:
    # so does check. (A course that passes: tests/site/test_check_command.py.)
    course_file = course.root / "content" / "course.yaml"
    course_file.write_text(
        course_file.read_text(encoding="utf-8") + "quiz_gate: {min_questions: 8, min_generated: 0}\n", encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "check", "--root", str(course.root)],
        capture_output=True,
        text=True,
        env=_borrowing_env(),
    )
    assert result.returncode == 1
    assert (
        "content/quizzes/alpha.yaml:1:1: a quiz needs at least 8 questions, found 2 "
        "(quiz_gate.min_questions in content/course.yaml)"
    ) in result.stderr.splitlines()


def test_link_to_an_exercise_no_lesson_lists_is_broken(course):
    course.replace(BETA, "Each pair is rotated by $p \\theta_i$.", "See [e](exercise:alibi_bias).")
    assert course.errors() == [
        f"{course.position(BETA, 'exercise:alibi_bias')}: broken link "
        "'exercise:alibi_bias': no lesson lists exercise 'alibi_bias' under 'exercises', "
        "so the exercises page has no entry for it"
    ]


def test_missing_translation_in_course_yaml_is_an_error(course):
    course.replace(COURSE, "title: {en: Mini course, zh: 迷你课程}", "title: {en: Mini course}")
    assert course.errors() == [f"{course.position(COURSE, 'title:')}: missing translation: 'zh' is required"]


def test_the_engine_s_quiz_gate_defaults_are_neutral(course):
    # a course that states no quiz_gate: its two-question quiz is not held to another course's bar
    from coursegen.quiz.gate import verify_quizzes

    assert "quiz_gate" not in (course.root / "content" / "course.yaml").read_text(encoding="utf-8")
    assert not [p for p in verify_quizzes(course.root) if "quiz_gate" in p]
