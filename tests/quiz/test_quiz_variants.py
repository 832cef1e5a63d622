"""Per-student variants: deterministic, answers computed by the references, distractors from mistakes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coursegen.errors import ContentError
from coursegen.quiz import answers
from coursegen.quiz.variants import make_variant, stable_seed
from tests.nonempty import nonempty

REPO = Path(__file__).resolve().parents[2]


def by_id(variant: dict, question_id: str) -> dict:
    return next(item for item in variant["questions"] if item["id"] == question_id)


def test_same_student_gets_the_same_variant_twice(loaded):
    assert make_variant(loaded, "alice") == make_variant(loaded, "alice")


def test_students_get_different_parameters_for_generated_questions(loaded):
    params = {
        json.dumps(by_id(make_variant(loaded, f"student-{n}"), "gen-saved")["params"], sort_keys=True)
        for n in range(12)
    }
    assert len(params) > 3


def test_stable_seed_does_not_depend_on_python_hash_randomisation():
    code = "from coursegen.quiz.variants import stable_seed; print(stable_seed('alice', 'mini', 'q'))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert outputs == {f"{stable_seed('alice', 'mini', 'q')}\n"}


def test_generated_shape_answer_is_the_shape_of_the_logits(loaded):
    item = by_id(make_variant(loaded, "bob"), "gen-shape")
    p = item["params"]
    assert item["answer"] == [p["B"], p["S"], p["V"]]
    assert f"$B={p['B']}$" in item["text"]["en"] and f"$V={p['V']}$" in item["text"]["zh"]


def test_generated_saving_equals_one_table_of_v_by_d(loaded):
    item = by_id(make_variant(loaded, "carol"), "gen-saved")
    assert item["answer"] == item["params"]["V"] * item["params"]["D"]


def test_catalogued_mistakes_become_distractors_with_their_hint(loaded):
    from tests.first_course import for_target

    mistakes = {m.id: m.hint for m in for_target("count_parameters")}
    assert mistakes, "the catalogue has no count_parameters mistake (this test needs one)"
    item = by_id(make_variant(loaded, "dave"), "gen-saved")
    from_catalogue = [w for w in item["wrong"] if w["key"] in mistakes]
    assert from_catalogue and all(w["feedback"] == mistakes[w["key"]] for w in from_catalogue)


def test_generated_single_choice_has_one_correct_option_among_distinct_values(loaded):
    item = by_id(make_variant(loaded, "erin"), "gen-choice")
    texts = [o["text"]["en"] for o in item["options"]]
    assert sum(o["correct"] for o in item["options"]) == 1 and len(set(texts)) == len(texts) >= 3


def test_hand_written_options_are_shuffled_per_student_but_keep_their_feedback(loaded):
    orders = {
        tuple(o["text"]["en"] for o in by_id(make_variant(loaded, f"s{n}"), "pick-one")["options"]) for n in range(10)
    }
    assert len(orders) > 1
    item = by_id(make_variant(loaded, "s1"), "pick-one")
    right = next(o for o in item["options"] if o["correct"])
    assert right["text"]["en"] == "The LM head" and right["feedback"]["en"] == "Right."


def test_unknown_placeholder_is_a_content_error_at_the_question(loaded, course, replace_in):
    from coursegen.quiz.load import course_quizzes

    replace_in(course / "content/quizzes/mini.yaml", "parameters saved by tying?", "parameters saved by {{W}}?")
    (quiz,) = course_quizzes(course)
    with pytest.raises(ContentError, match=r"mini\.yaml:\d+:\d+: question 'gen-saved': \{\{W\}\} is not a parameter"):
        make_variant(quiz, "x")


def test_unknown_answer_function_lists_the_known_ones(course, replace_in):
    from coursegen.quiz.load import course_quizzes

    replace_in(course / "content/quizzes/mini.yaml", "answer: tying_saved", "answer: tying_savings")
    (quiz,) = course_quizzes(course)
    with pytest.raises(ContentError, match="unknown answer function 'tying_savings'; known: .*tying_saved"):
        make_variant(quiz, "x")


def test_every_registered_answer_function_has_a_docstring_and_a_kind():
    for function in nonempty(answers.answer_functions(REPO).values()):
        assert function.doc and function.kind in ("number", "shape")
