"""The gate rejects a parameter space in which a catalogued wrong answer is accepted as right.

The fixture question is the first course's NTK slowdown (theta_i / theta_i' for the NTK-aware
base) with a relative tolerance of 0.1%. The catalogued mistake 'ntk-base-times-scale' uses
base * s for the new base, which slows pair i by s^(2i/d) instead of s^(2i/(d-2)): for a large
head dimension and a small i the two differ by less than 0.1%. Which variants do is computed
below from those closed forms, apart from the engine."""

from __future__ import annotations

import random
import re

import pytest

from coursegen.quiz import answers
from coursegen.quiz.gate import verify_quizzes
from coursegen.quiz.load import course_quizzes
from coursegen.quiz.variants import generated_item

QUESTION = """
  - id: gen-slowdown
    type: numeric
    objectives: [2]
    text: {en: "NTK, scale {{scale}}, d = {{d}}: slowdown of pair {{i}}?", zh: "NTK，倍数 {{scale}}，d = {{d}}：第 {{i}} 对慢多少倍？"}
    explanation: {en: "It is {{answer}}.", zh: "答案是 {{answer}}。"}
    tolerance: {rel: 0.001}
    decimals: 4
    feedback: {en: Right., zh: 对。}
    default_wrong_feedback: {en: "s^(2i/(d-2)).", zh: "s^(2i/(d-2))。"}
    generate:
      answer: ntk_pair_slowdown
      min_variants: 3
      reason: {en: A fixture., zh: 测试用。}
      params:
        scale: {choices: [2]}
        d: {choices: [64]}
        i: {choices: [1, 2, 3, 10]}
"""


def _within_tolerance(scale: int, d: int, i: int) -> bool:
    key = scale ** (2 * i / (d - 2))
    times_scale = scale ** (2 * i / d)  # new base = base * scale
    return abs(times_scale - key) <= 0.001 * key


@pytest.fixture
def slowdown_course(course):
    quiz = course / "content/quizzes/mini.yaml"
    quiz.write_text(quiz.read_text(encoding="utf-8").rstrip("\n") + "\n" + QUESTION, encoding="utf-8")
    return course


def test_a_mistake_within_tolerance_of_the_key_fails_the_gate_naming_variant_and_mistake(slowdown_course):
    offending = [i for i in (1, 2, 3, 10) if _within_tolerance(2, 64, i)]
    assert offending == [1]  # the closed forms: only i = 1 is that close
    (error,) = [p for p in verify_quizzes(slowdown_course) if "gen-slowdown" in p]
    assert re.match(r"content/quizzes/mini\.yaml:\d+:\d+: question 'gen-slowdown': in 1 of 4 ", error)  # located
    assert "in 1 of 4 variant(s)" in error
    assert "{scale: 2, d: 64, i: 1}: 'ntk-base-times-scale' gives 1.0219" in error
    assert "the key is 1.02261" in error
    assert "tolerance ±0.1%" in error


def test_the_gate_passes_once_the_parameters_exclude_that_variant(slowdown_course, replace_in):
    replace_in(
        slowdown_course / "content/quizzes/mini.yaml", "i: {choices: [1, 2, 3, 10]}", "i: {choices: [2, 3, 10, 12]}"
    )
    assert not [i for i in (2, 3, 10, 12) if _within_tolerance(2, 64, i)]
    assert [p for p in verify_quizzes(slowdown_course) if "gen-slowdown" in p] == []


def test_such_a_variant_is_never_handed_out(slowdown_course):
    (loaded,) = course_quizzes(slowdown_course)
    question = next(q for q in loaded.quiz.questions if q.id == "gen-slowdown")
    with pytest.raises(answers.InvalidParams, match="'ntk-base-times-scale' gives 1.0218971"):
        generated_item(slowdown_course, question, {"scale": 2, "d": 64, "i": 1}, random.Random(0))
    item = generated_item(slowdown_course, question, {"scale": 2, "d": 64, "i": 10}, random.Random(0))
    assert "ntk-base-times-scale" in [w["key"] for w in item["wrong"]]
