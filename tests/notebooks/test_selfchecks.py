"""The generated self-check code, run in-process (no kernel) against references, stubs and wrong code."""

from __future__ import annotations

import contextlib
import io

import pytest

from coursegen import exercise_source
from coursegen.selfcheck_code import ExpectedValues, literal, selfcheck_cell, tools_cell
from coursegen.selfcheck_cases import by_exercise
from grader.course_requires import course_requirements
from tests.first_course import BY_NAME, EXERCISES

from .nbhelpers import PROJECT_ROOT
from tests.nonempty import nonempty

REQUIRES = course_requirements(PROJECT_ROOT)  # the course's requires: (torch)
BY_EXERCISE = by_exercise(PROJECT_ROOT)  # this course's selfchecks(...) (content/plugins/selfchecks.py)
SPECS = tuple(BY_EXERCISE.values())


@pytest.fixture(scope="module")
def expected_values(tmp_path_factory):
    return ExpectedValues(PROJECT_ROOT / "solutions", tmp_path_factory.mktemp("cache"))


def run_selfcheck(name: str, definition: str, expected_values, lang: str = "en") -> str:
    """Define `definition` after the setup imports and tools, run the self-check, return what it printed."""
    module = BY_NAME[name].module
    spec = BY_EXERCISE[name]
    literals = expected_values.literals(spec, module)
    namespace: dict = {}
    modules = [
        exercise_source.ParsedModule.read(PROJECT_ROOT / folder / f"{module}.py")
        for folder in ("exercises", "solutions")
    ]
    exec("\n".join(exercise_source.setup_imports(modules, REQUIRES)), namespace)
    exec(tools_cell(lang, REQUIRES), namespace)
    exec(definition, namespace)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(selfcheck_cell(spec, lang, literals), namespace)
    return output.getvalue()


def reference(name: str) -> str:
    module = exercise_source.ParsedModule.read(PROJECT_ROOT / "solutions" / f"{BY_NAME[name].module}.py")
    return exercise_source.reference_source(module, name, {name})


def stub(name: str) -> str:
    module = exercise_source.ParsedModule.read(PROJECT_ROOT / "exercises" / f"{BY_NAME[name].module}.py")
    return exercise_source.stub_source(module, name)


def test_every_registered_exercise_has_a_selfcheck_spec():
    assert {spec.exercise for spec in SPECS} == {exercise.name for exercise in EXERCISES}


def test_every_spec_has_bilingual_labels():
    for spec in SPECS:
        for item in nonempty(spec.cases + spec.properties):
            assert set(item.label) == {"en", "zh"} and all(item.label.values()), spec.exercise


@pytest.mark.parametrize("name", [exercise.name for exercise in EXERCISES])
def test_reference_passes_its_selfcheck(name, expected_values):
    printed = run_selfcheck(name, reference(name), expected_values)
    assert printed.startswith(f"[PASS] {name}:"), printed


@pytest.mark.parametrize("name", [exercise.name for exercise in EXERCISES])
def test_stub_reports_not_implemented_without_raising(name, expected_values):
    printed = run_selfcheck(name, stub(name), expected_values)
    assert printed.startswith(f"[TODO] {name} is not implemented yet"), printed


def test_wrong_values_report_the_first_difference(expected_values):
    half_split = (
        "def apply_rope(x, positions=None, base=10000.0):\n"
        "    S, d = x.shape[-2], x.shape[-1]\n"
        "    p = torch.arange(S) if positions is None else positions\n"
        "    a = p.double()[:, None] * base ** (-torch.arange(0, d, 2).double() / d)\n"
        "    a = torch.cat([a, a], dim=-1)\n"
        "    half = torch.cat([-x[..., d // 2:], x[..., :d // 2]], dim=-1)\n"
        "    return (x * a.cos() + half * a.sin()).to(x.dtype)\n"
    )
    printed = run_selfcheck("apply_rope", half_split, expected_values)
    assert printed.startswith(
        "[FAIL] apply_rope, case 1 (x of shape [1, 2, 3, 8], default positions): "
        "result: first difference at index [0, 0, 1, "
    ), printed
    assert "expected" in printed and "max error" in printed


def test_wrong_integer_reports_expected_and_actual(expected_values):
    printed = run_selfcheck(
        "count_parameters", "def count_parameters(v, d, tied):\n    return 2 * v * d\n", expected_values
    )
    assert printed.strip() == "[FAIL] count_parameters, case 2 (V=100, D=16, tied): result: expected 1600, got 3200"


def test_wrong_dtype_is_named(expected_values):
    printed = run_selfcheck(
        "relative_positions",
        "def relative_positions(n):\n    i = torch.arange(n, dtype=torch.float32)\n    return i[None, :] - i[:, None]\n",
        expected_values,
    )
    assert "expected dtype torch.int64, got torch.float32" in printed


def test_wrong_shape_is_named(expected_values):
    printed = run_selfcheck("lm_logits", "def lm_logits(hidden, weight):\n    return hidden\n", expected_values)
    assert "expected shape [1, 2, 5], got [1, 2, 3]" in printed


def test_a_failing_property_names_the_property(expected_values):
    copied = (
        "class TiedLM(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        super().__init__()\n"
        "        self.token_embedding = nn.Embedding(vocab_size, d_model)\n"
        "        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)\n"
        "        self.lm_head.weight = nn.Parameter(self.token_embedding.weight.clone())\n"
        "    def forward(self, ids):\n"
        "        return self.token_embedding(ids) @ self.token_embedding.weight.T\n"
    )
    printed = run_selfcheck("TiedLM", copied, expected_values)
    assert printed.startswith('[FAIL] TiedLM, property "the LM head and the embedding share one weight'), printed


def test_a_missing_error_is_reported(expected_values):
    printed = run_selfcheck(
        "pad_batch",
        "def pad_batch(sequences, pad_id=0):\n"
        "    n = max((len(s) for s in sequences), default=0)\n"
        "    ids = torch.tensor([s + [pad_id] * (n - len(s)) for s in sequences], dtype=torch.long).reshape(len(sequences), n)\n"
        "    mask = torch.tensor([[True] * len(s) + [False] * (n - len(s)) for s in sequences], dtype=torch.bool).reshape(len(sequences), n)\n"
        "    return ids, mask\n",
        expected_values,
    )
    assert printed.startswith(
        '[FAIL] pad_batch, property "an empty batch raises ValueError": '
        "expected ValueError to be raised, but nothing was raised"
    ), printed


def test_an_unexpected_exception_is_reported_not_raised(expected_values):
    printed = run_selfcheck("alibi_slopes", "def alibi_slopes(n):\n    return {}[n]\n", expected_values)
    assert printed.startswith("[FAIL] alibi_slopes, case 1 (8 heads (a power of two)): your code raised KeyError: 8"), (
        printed
    )


def test_an_undefined_exercise_asks_to_run_its_cell(expected_values):
    printed = run_selfcheck("alibi_bias", "pass\n", expected_values)
    assert printed.strip() == "[FAIL] alibi_bias is not defined: run the cell that defines it first."


def test_messages_follow_the_notebook_language(expected_values):
    assert run_selfcheck("encode", stub("encode"), expected_values, lang="zh").startswith("[TODO] encode 尚未实现")
    assert run_selfcheck("encode", reference("encode"), expected_values, lang="zh").startswith("[PASS] encode：全部")


def test_float32_literals_round_trip_exactly():
    import torch

    values = torch.tensor([0.1, -1e-7, 3.0, 123456.789, 2.0**-20], dtype=torch.float32)
    rebuilt = eval(literal(values), {"torch": torch})
    assert rebuilt.dtype == torch.float32 and torch.equal(rebuilt, values)


def test_literals_rebuild_nested_tuples_lists_ints_and_empty_tensors():
    import torch

    value = ([1, 2], (torch.zeros(0, 3, dtype=torch.long), torch.tensor([[True, False]])), 7, float("inf"))
    rebuilt = eval(literal(value), {"torch": torch})
    assert rebuilt[0] == [1, 2] and rebuilt[2] == 7 and rebuilt[3] == float("inf")
    assert rebuilt[1][0].shape == (0, 3) and rebuilt[1][0].dtype == torch.long
    assert torch.equal(rebuilt[1][1], torch.tensor([[True, False]]))


@pytest.mark.parametrize("name", [exercise.name for exercise in EXERCISES])
def test_a_correct_implementation_written_differently_passes_its_selfcheck(name, expected_values):
    from .alternatives import ALTERNATIVES

    definition = ALTERNATIVES[name]
    if name == "alibi_bias":  # it builds on the student's own alibi_slopes, as in the notebook
        definition = ALTERNATIVES["alibi_slopes"] + definition
    printed = run_selfcheck(name, definition, expected_values)
    assert printed.startswith(f"[PASS] {name}:"), printed


def test_an_unimplemented_helper_exercise_is_named(expected_values):
    from .alternatives import ALTERNATIVES

    printed = run_selfcheck("alibi_bias", stub("alibi_slopes") + "\n\n" + ALTERNATIVES["alibi_bias"], expected_values)
    assert printed.strip() == (
        "[TODO] alibi_bias calls alibi_slopes, which is not implemented yet. "
        "Implement alibi_slopes first, run its cell, then run this cell again."
    )


def test_expected_values_are_the_float64_results_rounded_once_to_float32(expected_values):
    import torch

    (text,) = expected_values.literals(BY_EXERCISE["lm_logits"], "lm_head")
    embedded = eval(text, {"torch": torch})
    hidden = torch.linspace(-1.0, 1.0, 6, dtype=torch.float64).reshape(1, 2, 3)
    weight = torch.arange(15.0, dtype=torch.float64).reshape(5, 3) / 10
    assert embedded.dtype == torch.float32
    assert torch.equal(embedded, (hidden @ weight.T).to(torch.float32))
