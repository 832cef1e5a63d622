"""The answer functions of the subwords, RoPE-in-practice and capstone quizzes agree with their
independent oracles (content/plugins/quiz_oracles.py: plain `math`, no torch, no solutions)
over the WHOLE parameter space their quiz YAML allows, not a sample."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from coursegen.quiz import answers as generators
from coursegen.quiz.load import course_quizzes
from coursegen.quiz.schema import GeneratedQuestion

ROOT = Path(__file__).resolve().parents[2]
ORACLES = generators.oracles(ROOT)  # this course's oracles (content/plugins/)
NEW_LESSONS = ["subwords-objective", "rope-practice", "capstone-tiny-lm"]
NEW_ANSWERS = {
    "bpe_run_merge_length",
    "causal_allowed_count",
    "loss_target_count",
    "ntk_scaled_base",
    "ntk_pair_slowdown",
    "rope_wavelength",
    "uniform_loss",
    "tinylm_parameters",
    "tinylm_logits_shape",
}


def _generated_questions() -> list[GeneratedQuestion]:
    questions = []
    for loaded in course_quizzes(ROOT, NEW_LESSONS):
        questions += [q for q in loaded.quiz.questions if isinstance(q, GeneratedQuestion)]
    return questions


QUESTIONS = _generated_questions()


def _whole_space(question: GeneratedQuestion) -> list[dict]:
    names = list(question.generate.params)
    axes = [question.generate.params[n].values() for n in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*axes)]


def _same(actual, expected) -> bool:
    if isinstance(expected, list):
        return actual == expected
    if isinstance(expected, int) and not isinstance(expected, bool):
        return isinstance(actual, int) and actual == expected
    return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-12)


def test_every_new_answer_function_has_an_oracle_and_a_question():
    assert NEW_ANSWERS <= set(ORACLES)
    assert NEW_ANSWERS <= set(generators.answer_functions(ROOT))
    assert {q.generate.answer for q in QUESTIONS} >= NEW_ANSWERS


def test_oracles_take_exactly_the_answer_functions_parameters():
    import inspect

    for name in NEW_ANSWERS:
        assert tuple(inspect.signature(ORACLES[name]).parameters) == generators.answer_functions(ROOT)[name].params, (
            name
        )


def test_oracles_import_neither_torch_nor_the_solutions():
    import ast

    tree = ast.parse((ROOT / "content" / "plugins" / "quiz_oracles.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    # relative imports count too: `from . import x` has level 1 and no module
    imported |= {"." * node.level + (node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    # Only these standard-library modules and the plugin decorators: no torch, no solutions, no
    # answer functions, so an oracle is written apart from what it checks.
    assert imported <= {"__future__", "math", "random", "typing", "coursegen.plugin"}, imported


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.generate.answer in NEW_ANSWERS], ids=lambda q: q.id)
def test_answer_function_agrees_with_its_oracle_over_the_whole_parameter_space(question):
    answer_function = generators.answer_functions(ROOT)[question.generate.answer].func
    oracle = ORACLES[question.generate.answer]
    disagreements, valid = [], 0
    for params in _whole_space(question):
        try:
            computed = answer_function(**params).answer
        except generators.InvalidParams:
            continue
        valid += 1
        expected = oracle(**params)
        if not _same(computed, expected):
            disagreements.append((params, computed, expected))
    assert valid >= 20
    assert disagreements == []


def test_a_wrong_answer_function_would_be_caught():
    """The comparison is not vacuous: an answer off by one disagrees with the oracle."""
    assert not _same(ORACLES["causal_allowed_count"](S=5) + 1, ORACLES["causal_allowed_count"](S=5))
    assert not _same(
        ORACLES["rope_wavelength"](base=10000, i=1, d=8) * 1.001, ORACLES["rope_wavelength"](base=10000, i=1, d=8)
    )
