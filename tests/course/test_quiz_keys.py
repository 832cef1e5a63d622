"""The first course's quiz keys: each answer function has an independent oracle (content/plugins/quiz_oracles.py)
that imports no torch and no solutions, keys and oracles give values worked by hand, and every key of
the course agrees with its oracle over its parameter space (RoPE angles never folded)."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

import pytest

from coursegen.quiz import answers, oracle_check
from coursegen.quiz.load import course_quizzes
from tests.first_course import question as real_question
from tests.nonempty import nonempty

REPO = Path(__file__).resolve().parents[2]


def test_every_answer_function_has_an_oracle_with_its_parameters():
    for name, function in nonempty(answers.answer_functions(REPO).items()):
        assert name in answers.oracles(REPO), name
        assert tuple(inspect.signature(answers.oracles(REPO)[name]).parameters) == function.params, name


def test_oracles_import_neither_torch_nor_solutions_nor_answer_helpers():
    tree = ast.parse((REPO / "content" / "plugins" / "quiz_oracles.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0] if node.level == 0 else "." + (node.module or ""))
    assert imported <= {"__future__", "math", "random", "typing", "coursegen"}, imported
    assert all(
        a.name == "oracle"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "coursegen.plugin"
        for a in node.names
    )


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("rope_angle", {"p": 53, "i": 0, "d": 32}, 53.0),  # the folded case of issue 12
        ("rope_angle", {"p": 40, "i": 4, "d": 16}, 40 * 0.01),  # 10000^(-8/16) = 1/100
        ("alibi_slope", {"h": 5, "H": 6}, 0.5),  # Press et al.: 6 heads -> 4 + 2^-1, 2^-3
        ("alibi_slope", {"h": 6, "H": 6}, 0.125),
        ("alibi_slope", {"h": 9, "H": 12}, 2**-0.5),
        ("alibi_slope", {"h": 1, "H": 8}, 0.5),
        ("alibi_bias_value", {"h": 2, "H": 8, "i": 3, "j": 7}, -1.0),
        ("relative_distinct", {"S": 10}, 19),
        ("sinusoidal_wavelength", {"i": 0, "d_model": 64}, 2 * math.pi),
        ("rope_rotated_first", {"p": 7, "i": 1, "d": 8, "x0": 1, "x1": 0}, math.cos(0.7)),
    ],
)
def test_keys_and_oracles_match_values_worked_by_hand(name, params, expected):
    key = answers.answer_functions(REPO)[name].func(**params).answer
    assert key == pytest.approx(expected, rel=1e-6)
    assert answers.oracles(REPO)[name](**params) == pytest.approx(expected, rel=1e-12)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_real_course_keys_agree_with_their_oracles():
    for loaded in nonempty(course_quizzes(REPO)):
        assert oracle_check.check_quiz(loaded) == [], loaded.quiz.id


def test_rope_angle_keys_are_never_folded():
    _loaded, _index, question = real_question("rope-angle")
    for p in nonempty(question.generate.params["p"].values()):
        for i in nonempty(question.generate.params["i"].values()):
            for d in nonempty(question.generate.params["d"].values()):
                key = answers.answer_functions(REPO)["rope_angle"].func(p=p, i=i, d=d).answer
                assert key == pytest.approx(p * 10000.0 ** (-2 * i / d), rel=1e-9)
