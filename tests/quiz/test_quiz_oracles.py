"""Quiz keys proven against independent oracles (@oracle in content/plugins/quiz_oracles.py)."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

import pytest

from coursegen.quiz import answers, oracle_check
from coursegen.quiz.load import course_quizzes
from coursegen.quiz.schema import GeneratedQuestion

REPO = Path(__file__).resolve().parents[2]


def real_question(question_id: str) -> tuple:
    for loaded in course_quizzes(REPO):
        for index, question in enumerate(loaded.quiz.questions):
            if question.id == question_id:
                return loaded, index, question
    raise LookupError(question_id)


def test_every_answer_function_has_an_oracle_with_its_parameters():
    for name, function in answers.answer_functions(REPO).items():
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


def test_the_real_course_keys_agree_with_their_oracles():
    for loaded in course_quizzes(REPO):
        assert oracle_check.check_quiz(loaded) == [], loaded.quiz.id


def _folded_rope_angle(p: int, i: int, d: int) -> answers.Generated:
    """The rope_angle of issue 12: the angle read back with atan2, folded into (-pi, pi]."""
    angle = p * 10000.0 ** (-2 * i / d)
    return answers.Generated(math.atan2(math.sin(angle), math.cos(angle)))


@pytest.fixture
def folded(monkeypatch):
    original = answers.answer_functions(REPO)["rope_angle"]
    monkeypatch.setitem(
        answers.answer_functions(REPO),
        "rope_angle",
        answers.AnswerFunction("rope_angle", _folded_rope_angle, "number", original.params, ""),
    )


def test_a_folded_key_is_reported_with_question_params_and_both_values(folded):
    loaded, index, _question = real_question("rope-angle")
    errors = [str(e) for e in oracle_check.check_quiz(loaded)]
    assert len(errors) == 1
    where = str(loaded.where(index, "generate"))
    assert errors[0].startswith(
        f"{where}: question 'rope-angle': the key disagrees with the oracle of 'rope_angle' "
        "at params {'p': 4, 'i': 0, 'd': 16}: the key is "
    )
    assert errors[0].endswith("the oracle says 4.0")
    assert f"the key is {math.atan2(math.sin(4), math.cos(4))!r}" in errors[0]


def test_hypothesis_finds_a_disagreement_in_a_large_space(folded, monkeypatch):
    monkeypatch.setattr(oracle_check, "EXHAUSTIVE_LIMIT", 10)
    _loaded, _index, question = real_question("rope-angle")
    method, _compared, problem, _tried = oracle_check.check_question(REPO, question)
    assert method == "hypothesis"
    assert isinstance(problem, oracle_check.Disagreement)
    assert problem.params["p"] * 10000.0 ** (-2 * problem.params["i"] / problem.params["d"]) > math.pi
    assert problem.expected == pytest.approx(answers.oracles(REPO)["rope_angle"](**problem.params))


def test_hypothesis_search_is_deterministic(monkeypatch):
    monkeypatch.setattr(oracle_check, "EXHAUSTIVE_LIMIT", 10)
    seen: list[list[dict]] = []
    original = answers.oracles(REPO)["relative_offset"]
    for _ in range(2):
        calls: list[dict] = []

        def recording(S: int, i: int, j: int) -> int:
            calls.append({"S": S, "i": i, "j": j})
            return original(S=S, i=i, j=j)

        monkeypatch.setitem(answers.oracles(REPO), "relative_offset", recording)
        _l, _i, question = real_question("relative-entry")
        assert oracle_check.check_question(REPO, question).problem is None
        seen.append(calls)
    assert seen[0] == seen[1] and len(seen[0]) > 50


def test_an_integer_key_must_be_exact_even_within_tolerance(monkeypatch):
    original = answers.answer_functions(REPO)["relative_distinct"]
    off = answers.AnswerFunction(
        "relative_distinct", lambda S: answers.Generated(2 * S - 1 + 1e-9), "number", original.params, ""
    )
    monkeypatch.setitem(answers.answer_functions(REPO), "relative_distinct", off)
    _l, _i, question = real_question("relative-distinct")
    assert isinstance(oracle_check.check_question(REPO, question).problem, oracle_check.Disagreement)


def test_the_gate_refuses_an_answer_function_without_an_oracle(course, monkeypatch):
    from coursegen.quiz.gate import verify_quizzes

    (loaded,) = course_quizzes(course)
    name = next(q.generate.answer for q in loaded.quiz.questions if isinstance(q, GeneratedQuestion))
    monkeypatch.delitem(answers.oracles(course), name)  # the fixture course's own (its plugin files are REPO's)
    problems = verify_quizzes(course)
    assert any(
        f"answer function '{name}' has no independent oracle: add one with @oracle('{name}') in "
        "the course's content/plugins/" in p
        for p in problems
    ), problems


def test_rope_angle_keys_are_never_folded():
    _loaded, _index, question = real_question("rope-angle")
    for p in question.generate.params["p"].values():
        for i in question.generate.params["i"].values():
            for d in question.generate.params["d"].values():
                key = answers.answer_functions(REPO)["rope_angle"].func(p=p, i=i, d=d).answer
                assert key == pytest.approx(p * 10000.0 ** (-2 * i / d), rel=1e-9)
