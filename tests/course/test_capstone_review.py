"""Issue 37: the capstone's claims keep a margin from every seed, the no-order two-back bound is
computed (not typed), no generated distractor of `ntk-pair-slowdown` equals its key in any variant,
and speaker notes never print a raw float with more than four significant digits."""

from __future__ import annotations

import itertools
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from coursegen.claims import claims
from coursegen.quiz import answers
from coursegen.quiz.variants import short_number
from tests.first_course import question

REPO = Path(__file__).resolve().parents[2]


def _significant_digits(text: str) -> int:
    digits = Decimal(text.replace(",", "")).normalize().as_tuple().digits
    return len(digits)


def test_the_no_order_two_back_bound_is_two_thirds():
    # independent of the plugin's enumeration: with period 3, the earlier tokens' counts and the current
    # token decide the next token only at t = 4, 7, 10 (one token seen once less than the others, and
    # it is not the current one); elsewhere two tokens tie and the best guess is right half the time
    per_target = [Fraction(1, 2), Fraction(1, 2), Fraction(1)] * 3  # targets after t = 2 .. 10
    by_hand = sum(per_target) / len(per_target)
    assert by_hand == Fraction(2, 3)
    bound = claims(REPO)["two_back_vs_no_order"].func.__globals__["no_order_two_back_bound"]()
    assert bound == by_hand


def _results(values: list[float], measure: str = "two_back") -> dict:
    return {
        "seeds": list(range(len(values))),
        "arms": {"a": {"config": {}, "seeds": list(range(len(values))), "runs": [{measure: v} for v in values]}},
    }


def test_a_claim_reports_the_margin_of_its_deciding_seed():
    check = claims(REPO)["final_loss_below"].func
    found = check(_results([0.5, 0.6, 0.70, 0.9], "final"), arms=["a"], floor=0.718, at_least=2)
    assert found.holds and found.margin == pytest.approx(0.718 - 0.6)
    every = check(_results([0.5, 0.6, 0.70], "final"), arms=["a"], floor=0.718)
    assert every.holds and every.margin == pytest.approx(0.018)
    assert every.margin < every.required_margin  # the build refuses it (coursegen.claims.run_and_check)


def test_a_claim_that_no_seed_may_pass_measures_its_margin_from_the_closest_seed():
    check = claims(REPO)["two_back_vs_no_order"].func
    found = check(_results([0.49, 0.62, 0.5]), arms=["a"], side="below")
    assert found.holds and found.margin == pytest.approx(2 / 3 - 0.62)


def _variants(q) -> list[dict]:
    names = list(q.generate.params)
    spaces = [q.generate.params[name].values() for name in names]
    return [dict(zip(names, combo)) for combo in itertools.product(*spaces)]


def test_no_distractor_of_ntk_pair_slowdown_equals_its_key_in_any_variant():
    _loaded, _index, q = question("ntk-pair-slowdown")
    function = answers.answer_functions(REPO)[q.generate.answer]
    variants = _variants(q)
    assert len(variants) >= 20
    checked = 0
    for params in variants:
        try:
            generated = function.func(**params)
        except answers.InvalidParams:
            continue
        key = params["scale"] ** (2 * params["i"] / (params["d"] - 2))  # the closed form, apart from the code
        assert generated.answer == pytest.approx(key, rel=1e-9)
        for name, wrong in generated.wrong.items():
            if wrong.from_mistake and float(wrong.value) == generated.answer:
                continue  # a catalogued mistake that gives the key exactly is dropped by the engine (Wrong)
            assert abs(float(wrong.value) - key) > 0.001 * abs(key), (params, name, wrong.value)
        checked += 1
    assert checked == len(variants)


@pytest.mark.parametrize(
    "value, shown",
    [(68320.0, "68320"), (-11.17325877522894, "-11.17"), (0.000123456, "0.0001235"), (2.0794415, "2.079"), (1.0, "1")],
)
def test_short_number_keeps_at_most_four_significant_digits(value, shown):
    assert short_number(value) == shown
    assert _significant_digits(shown) <= 4


@pytest.mark.slow
def test_speaker_notes_never_print_a_number_with_more_than_four_significant_digits():
    from coursegen.loader import load_course
    from coursegen.pages import make_env
    from coursegen.slides.deck import UI, deck_slides
    from coursegen.slides.quiz import in_class_variants

    loaded = load_course(REPO)
    env = make_env(REPO, cache_dir=loaded.cache_dir)
    variants = in_class_variants(loaded, list(loaded.lessons), loaded.cache_dir)
    said = []
    for lesson in loaded.lessons:
        for lang in loaded.course.languages:
            prefix = re.escape(UI[lang]["if_chosen"].split("{answer}")[0])
            for slide in deck_slides(loaded, lesson, lang, env, variants.get(lesson.id)):
                for note in slide.notes:
                    said += re.findall(prefix + r"(-?[\d.,]+)(?=:|</)", note)
    assert said, "no deck printed a numeric distractor in its notes: the test would prove nothing"
    too_long = [text for text in said if _significant_digits(text) > 4 or text.endswith(".0")]
    assert not too_long
