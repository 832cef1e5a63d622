"""The oracle check of quiz keys (coursegen.quiz.oracle_check): a key that disagrees with its oracle
is reported with its question, parameters and both values; hypothesis searches a large space,
deterministically; integer keys must be exact; the gate refuses an answer function without an oracle.
The questions are the first course's (the folded RoPE angle of issue 12); the first course's own keys
are proven in tests/course/test_quiz_keys.py."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from coursegen.quiz import answers, oracle_check
from coursegen.quiz.load import course_quizzes
from tests.first_course import question as real_question
from coursegen.quiz.schema import GeneratedQuestion

REPO = Path(__file__).resolve().parents[2]


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
