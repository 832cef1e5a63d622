"""Every wrong solution of tests/course/wrong_solutions.py (at least three per exercise of the
course, written from the contracts) is caught through the real sandbox, and every failing check
tells the student what is wrong: as the student reads it (hidden checks not revealed), no
failure is only the generic sentence. The cases of issue 24 are asserted one by one below
(each failed on main before: passed as correct, or caught with only "This hidden check failed.",
or named the wrong misconception)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.first_course import COURSE, BY_NAME, EXERCISES, exercises_in
from grader.feedback import say
from grader.running.session import Job, run_session

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("wrong_solutions", Path(__file__).with_name("wrong_solutions.py"))
assert _spec and _spec.loader
wrong_solutions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wrong_solutions)
WRONG = wrong_solutions.WRONG
SEED = 24


def _job(key: str, exercise: str, source: str) -> Job:
    module = BY_NAME[exercise].module
    reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
    code = reference + "\nimport torch.nn.functional as F\n\n# ---- the wrong solution ----\n" + source
    return Job(key=key, exercises=tuple(e.name for e in exercises_in(module)), code=code, filename=f"{module}.py")


@pytest.fixture(scope="module")
def graded() -> dict:
    """Every wrong solution (and the right TinyLM of the same layout), graded in one sandboxed
    session as a student would be: hidden checks show what the student sees."""
    jobs = [
        _job(f"{exercise}: {label}", exercise, source) for exercise, cases in WRONG.items() for label, source in cases
    ]
    jobs.append(_job("TinyLM: right", "TinyLM", wrong_solutions.RIGHT_TINY_LM))
    results: dict = {}
    run_session(
        jobs,
        lambda job, outcomes: results.__setitem__(job.key, (job, outcomes)),
        seed=SEED,
        lang="en",
        reveal_hidden=False,
        prestart_sandbox=True,
        look_ahead=True,
        course=COURSE,
    )
    return results


def _failing(graded: dict, key: str) -> list:
    exercise = key.split(":")[0]
    return [o for o in graded[key][1] if o.exercise == exercise and not o.passed]


def test_every_exercise_has_at_least_three_wrong_solutions():
    assert {e.name for e in EXERCISES} == set(WRONG)
    assert all(len(cases) >= 3 for cases in WRONG.values())


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_right_tiny_lm_of_another_layout_passes(graded):
    assert [(o.name, o.output) for o in graded["TinyLM: right"][1] if not o.passed] == []


def test_every_wrong_solution_is_caught(graded):
    passed = [key for key in graded if key != "TinyLM: right" and not _failing(graded, key)]
    assert passed == []


def test_every_failure_says_what_is_wrong(graded):
    generic = say("hidden_failed", "en")
    vague = {
        (key, o.name): o.output
        for key in graded
        if key != "TinyLM: right"
        for o in _failing(graded, key)
        if not o.output.strip() or o.output.strip() == generic
    }
    assert vague == {}


def _outputs(graded: dict, key: str) -> str:
    return "\n".join(o.output for o in _failing(graded, key))


def _hint(mistake_id: str) -> str:
    from tests.first_course import catalogue

    return next(m.hint["en"] for m in catalogue() if m.id == mistake_id)


# ---- the cases, one by one --------------------------------------------------------------


def test_merge_pair_changing_the_callers_list_fails_and_says_so(graded):
    text = _outputs(graded, "merge_pair: changes the caller's list")
    assert "changed its argument `ids`" in text
    assert _hint("merge-changes-the-input") in text


def test_merge_pair_by_str_join_and_replace_fails_on_ids_of_several_digits(graded):
    failing = _failing(graded, "merge_pair: str.join and str.replace")
    assert "test_merge_pair_treats_ids_as_numbers_not_digits" in {o.name for o in failing}
    assert _hint("merge-joins-digits-as-text") in _outputs(graded, "merge_pair: str.join and str.replace")


def test_tiny_lm_head_with_a_bias_fails_with_its_hint(graded):
    failing = _failing(graded, "TinyLM: lm_head with a bias")
    assert "test_tiny_lm_head_has_no_bias" in {o.name for o in failing}
    assert _hint("tinylm-head-has-bias") in _outputs(graded, "TinyLM: lm_head with a bias")


@pytest.mark.parametrize(
    ("label", "check", "mistake_id"),
    [
        (
            "rope frequencies from d_model",
            "test_tiny_lm_rope_with_known_weights_rotates_q_and_k_at_head_frequencies",
            "tinylm-rope-frequencies-from-d-model",
        ),
        (
            "v rotated",
            "test_tiny_lm_values_are_not_rotated_a_repeated_token_gives_equal_logits",
            "tinylm-rope-rotates-v",
        ),
        (
            "alibi bias of the wrong sign",
            "test_tiny_lm_alibi_with_known_weights_penalises_distance_with_the_slopes",
            "tinylm-alibi-wrong-sign",
        ),
        (
            "scores divided by sqrt(D)",
            "test_tiny_lm_attention_with_known_weights_scales_scores_by_one_over_sqrt_d_head",
            "tinylm-scale-by-d-model",
        ),
    ],
)
def test_each_tiny_lm_behaviour_the_lesson_teaches_is_checked_and_named(graded, label, check, mistake_id):
    failing = _failing(graded, f"TinyLM: {label}")
    assert check in {o.name for o in failing}
    assert _hint(mistake_id) in _outputs(graded, f"TinyLM: {label}")


def test_tiny_lm_with_four_errors_at_once_fails_the_checks_of_each(graded):
    names = {o.name for o in _failing(graded, "TinyLM: four errors at once")}
    assert {
        "test_tiny_lm_rope_with_known_weights_rotates_q_and_k_at_head_frequencies",
        "test_tiny_lm_values_are_not_rotated_a_repeated_token_gives_equal_logits",
        "test_tiny_lm_alibi_with_known_weights_penalises_distance_with_the_slopes",
        "test_tiny_lm_attention_with_known_weights_scales_scores_by_one_over_sqrt_d_head",
    } <= names


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("causal_mask: negative length unchecked", "a negative seq_len must raise ValueError"),
        ("ntk_base: no validation", "scale < 1, an odd head_dim and head_dim < 4 must each raise ValueError"),
        ("next_token_loss: unstable softmax", "the result must stay finite (and right) for logits near 1e4"),
        ("next_token_loss: always float32", "float64 logits must give a float64 loss"),
        ("TinyLM: no length check", "a sequence longer than max_seq_len must raise ValueError in forward"),
        ("TinyLM: unknown position accepted", "an unknown `position` must raise ValueError"),
    ],
)
def test_hidden_failures_name_the_property_they_check(graded, key, words):
    text = _outputs(graded, key)
    assert say("hidden_failed_property", "en", property=words) in text


def test_attention_with_the_softmax_over_the_queries_is_not_misdiagnosed(graded):
    text = _outputs(graded, "TinyLM: softmax over the queries")
    assert _hint("tinylm-softmax-over-queries") in text
    assert _hint("tinylm-no-causal-mask") not in text
    assert _hint("tinylm-positions-for-none") not in text
