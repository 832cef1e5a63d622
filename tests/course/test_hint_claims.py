"""Hints and feedback that state a value or a rule hold for every parameter value they can be shown for.

The ALiBi texts are shown for every head count the checks use (grader/checks/test_alibi.py tries
H = 1..32) and the quizzes draw (content/quizzes/*.yaml). Truth here is the paper's rule, computed
by hand below (n = the largest power of two <= H), not by solutions/alibi.py.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from coursegen.quiz.load import course_quizzes
from coursegen.quiz.schema import GeneratedQuestion
from tests.first_course import for_target
from tests.nonempty import nonempty

REPO = Path(__file__).resolve().parents[2]
CHECKED_H = range(1, 33)


@functools.cache
def quizzes() -> tuple:
    """The first course's quizzes, read once per process: the parametrized tests below read them
    at collection, and reading and validating every quiz file takes seconds."""
    return tuple(course_quizzes(REPO))


def largest_power_of_two(H: int) -> int:
    n = 1
    while n * 2 <= H:
        n *= 2
    return n


def paper_first_slope(H: int) -> float:
    return 2.0 ** (-8.0 / largest_power_of_two(H))


def quiz_head_counts() -> set[int]:
    counts = set()
    for loaded in quizzes():
        for q in loaded.quiz.questions:
            if isinstance(q, GeneratedQuestion) and "H" in q.generate.params and q.generate.answer.startswith("alibi"):
                counts |= set(q.generate.params["H"].values())
    return counts


def alibi_texts() -> list[tuple[str, str]]:
    """(where, text) of every ALiBi mistake hint and every static ALiBi quiz text, both languages."""
    texts = [
        (f"mistake {m.id} ({lang})", m.hint[lang])
        for target in ("alibi_slopes", "alibi_bias")
        for m in for_target(target)
        for lang in ("en", "zh")
    ]
    for loaded in quizzes():
        for q in loaded.quiz.questions:
            if "alibi" not in q.id:
                continue
            for key, value in q.model_dump().items():
                for lang, text in _strings(value):
                    texts.append((f"quiz {q.id} {key} ({lang})", text))
    return texts


def _strings(value, lang=None):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, key if key in ("en", "zh") else lang)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, lang)
    elif isinstance(value, str) and lang:
        yield lang, value


# "2^(-8/H)" or "2^(-8(h+1)/H)" with any minus sign: the power-of-two rule, false for H = 6 or 12.
POWER_OF_TWO_RULE = re.compile(r"2\^\(\s*[-−]\s*8\s*(?:\(h\s*\+\s*1\)|h)?\s*/\s*H\s*\)")
# A sentence that says when the rule holds, or that describes a student applying it everywhere.
CONDITIONED = re.compile(r"power of two|2 的幂|every head count|任何头数")


def test_the_quizzes_and_checks_show_alibi_texts_for_non_powers_of_two():
    assert {6, 12} <= quiz_head_counts()
    assert any(H & (H - 1) for H in CHECKED_H)


def test_no_alibi_text_states_the_power_of_two_rule_unconditionally():
    wrong = []
    for where, text in alibi_texts():
        for sentence in re.split(r"(?<=[.。;；:：])\s*", text):
            if POWER_OF_TWO_RULE.search(sentence) and not CONDITIONED.search(sentence):
                wrong.append(f"{where}: {sentence}")
    assert wrong == []


@pytest.mark.parametrize("H", sorted(set(CHECKED_H) | quiz_head_counts()))
def test_the_start_at_one_hint_states_the_first_slope_for_this_head_count(H):
    (hint,) = [m.hint for m in for_target("alibi_slopes") if m.id == "alibi-slopes-start-at-one"]
    # The rule the hint states, in both languages: 2^(-8/n), n the largest power of two <= H.
    assert "2^(-8/n), n the largest power of two <= H" in hint["en"]
    assert "2^(-8/n) 开始，n 是不超过 H 的最大 2 的幂" in hint["zh"]
    from solutions.alibi import alibi_slopes

    assert float(alibi_slopes(H)[0]) == pytest.approx(paper_first_slope(H), rel=1e-6)


def test_alibi_slope_feedback_computes_the_first_slope_for_every_variant():
    from coursegen.quiz.answers import answer_functions

    REGISTRY = answer_functions(REPO)
    from coursegen.quiz.variants import bilingual, fill

    checked = 0
    for loaded in nonempty(quizzes()):
        for q in nonempty(loaded.quiz.questions):
            if not (isinstance(q, GeneratedQuestion) and q.generate.answer == "alibi_slope"):
                continue
            template = bilingual(q.wrong_feedback["counted-from-zero"])
            for H in nonempty(q.generate.params["H"].values()):
                for h in nonempty(q.generate.params["h"].values()):
                    if h > H:
                        continue
                    params = {"h": h, "H": H}
                    facts = REGISTRY["alibi_slope"].func(**params).facts
                    n = largest_power_of_two(H)
                    for lang in ("en", "zh"):
                        text = fill(template[lang], {**params, **facts, "answer": "?"})
                        match = re.search(r"2\^\(−8/(\d+)\) = ([0-9.]+)", text)
                        assert match, text
                        assert int(match.group(1)) == n, text
                        assert float(match.group(2)) == pytest.approx(paper_first_slope(H), rel=1e-5), text
                    checked += 1
    assert checked > 40


def slopes_of(m: int) -> list[float]:
    """2^(-8(h+1)/m), h = 0..m-1: the slopes of m heads, m a power of two."""
    return [2.0 ** (-8.0 * (h + 1) / m) for h in range(m)]


@pytest.mark.parametrize("H", sorted(H for H in set(CHECKED_H) | quiz_head_counts() if H & (H - 1)))
def test_the_rules_the_slope_hints_state_give_the_reference_slopes(H):
    """alibi-power-of-two-formula-everywhere: "the n slopes of n heads, then the 1st, 3rd, 5th, ... of 2n heads";
    alibi-slopes-odd-extras: "the 2nd, 4th, ... slopes of 2n heads repeat slopes you already have"."""
    from solutions.alibi import alibi_slopes

    n = largest_power_of_two(H)
    stated = slopes_of(n) + slopes_of(2 * n)[0::2][: H - n]
    assert [float(s) for s in alibi_slopes(H)] == pytest.approx(stated, rel=1e-6)
    assert all(any(abs(s - t) < 1e-12 for t in slopes_of(n)) for s in nonempty(slopes_of(2 * n)[1::2]))
    hints = {m.id: m.hint["en"] for m in for_target("alibi_slopes")}
    assert (
        "use the n slopes of n heads, n the largest power of two below H, then the 1st, 3rd, 5th, ... "
        "slopes of 2n heads" in hints["alibi-power-of-two-formula-everywhere"]
    )
    assert "2nd, 4th, ... slopes of 2n heads, which repeat slopes you already have" in hints["alibi-slopes-odd-extras"]


# Feedback of generated questions that states something about the drawn parameters, with the
# predicate that makes it true; checked over the question's whole parameter space.
PARAMETER_CLAIMS = {
    ("rope-rotate-pair", "not-rotated"): ("Position {{p}} is not 0", lambda params, facts: params["p"] != 0),
    ("gradient-accumulates", "no-accumulation"): (
        "Token {{v}} occurs more than once",
        lambda params, facts: ast.literal_eval(facts["ids"]).count(facts["v"]) >= 2,
    ),
    ("alibi-slope", "counted-from-zero"): (
        "head 1's slope is 2^(−8/{{n}}) = {{first_slope}}",
        lambda params, facts: (
            facts["n"] == largest_power_of_two(params["H"])
            and float(facts["first_slope"]) == pytest.approx(paper_first_slope(params["H"]), rel=1e-5)
        ),
    ),
}


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
@pytest.mark.parametrize(("question_id", "key"), sorted(PARAMETER_CLAIMS))
def test_parameter_dependent_feedback_holds_over_the_whole_parameter_space(question_id, key):
    import itertools

    from coursegen.quiz.answers import InvalidParams, answer_functions

    REGISTRY = answer_functions(REPO)

    claim, holds = PARAMETER_CLAIMS[(question_id, key)]
    (question,) = [q for loaded in quizzes() for q in loaded.quiz.questions if q.id == question_id]
    assert claim in question.wrong_feedback[key].en
    names = list(question.generate.params)
    checked = 0
    for combo in itertools.product(*(question.generate.params[n].values() for n in names)):
        params = dict(zip(names, combo))
        try:
            facts = REGISTRY[question.generate.answer].func(**params).facts
        except InvalidParams:
            continue
        assert holds(params, facts), (params, facts)
        checked += 1
    assert checked > 0
