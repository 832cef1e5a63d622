"""grader/checking/: comparisons, feedback sentences and catalogued-mistake hints."""

from pathlib import Path

import pytest
import torch

from grader import checking
from grader.checking import CheckFailure, expect_call, expect_close, expect_equal, expect_raises
from grader.feedback import LANGUAGES, MESSAGES
from grader.running.trusted import TrustedCandidate, reference_namespace, trusted_namespace
from tests.first_course import COURSE


@pytest.fixture(autouse=True)
def english():
    """The context a grading session gives the check helpers: English, the first course's mistakes."""
    checking.set_language("en")
    checking.set_course(COURSE)
    yield
    checking.set_language("en")
    checking.set_course(None)


@pytest.fixture(scope="module")
def reference():
    return reference_namespace(COURSE)


def failure_of(call, *args, **kwargs) -> str:
    with pytest.raises(CheckFailure) as info:
        call(*args, **kwargs)
    return str(info.value)


def test_correct_candidate_passes_expect_call(reference):
    candidate = TrustedCandidate(trusted_namespace(COURSE, "solutions"))
    x = torch.randn(2, 3, 5, 8)
    out = expect_call(candidate, reference, "apply_rope", x)
    assert out.dtype == torch.float32 and out.shape == x.shape


def test_wrong_value_names_first_index_expected_actual_and_max_error():
    expected = torch.zeros(2, 3)
    actual = expected.clone()
    actual[1, 2] = 0.5
    message = failure_of(expect_close, actual, expected, what="f")
    assert "index [1, 2]" in message
    assert "expected 0" in message and "got 0.5" in message
    assert "max abs error 0.5" in message and "1 of 6" in message


def test_wrong_shape_is_reported_before_values():
    message = failure_of(expect_close, torch.zeros(3, 2), torch.zeros(2, 3), what="f")
    assert "shape [3, 2]" in message and "expected [2, 3]" in message


def test_wrong_dtype_is_reported():
    message = failure_of(expect_close, torch.zeros(2, dtype=torch.float64), torch.zeros(2), what="f")
    assert "dtype torch.float64" in message and "expected torch.float32" in message


def test_nan_where_a_number_was_expected_is_reported_as_not_finite():
    actual = torch.tensor([1.0, float("nan"), 3.0])
    message = failure_of(expect_close, actual, torch.tensor([1.0, 2.0, 3.0]), what="f")
    assert "nan" in message.lower() and "index [1]" in message


def test_infinity_where_a_number_was_expected_is_reported():
    actual = torch.tensor([float("inf"), 2.0])
    message = failure_of(expect_close, actual, torch.tensor([1.0, 2.0]), what="f")
    assert "inf" in message and "index [0]" in message


def test_nan_where_nan_was_expected_passes():
    expect_close(torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]))


def test_tolerance_may_be_a_tensor_growing_along_an_axis():
    expected = torch.zeros(3, 2)
    actual = torch.tensor([[0.0, 0.0], [0.05, 0.0], [0.5, 0.0]])
    expect_close(actual, expected, atol=torch.tensor([[0.0], [0.1], [1.0]]), rtol=0.0)
    with pytest.raises(CheckFailure):
        expect_close(actual, expected, atol=torch.tensor([[0.0], [0.01], [1.0]]), rtol=0.0)


def test_list_of_ints_names_first_wrong_position():
    message = failure_of(expect_equal, [1, 2, 9, 4], [1, 2, 3, 5], what="encode")
    assert "index [2]" in message and "expected 3" in message and "got 9" in message


def test_a_list_where_a_tensor_was_expected_is_a_type_error():
    message = failure_of(expect_close, [0.0, 1.0], torch.zeros(2), what="f")
    assert "returned a list" in message and "tensor" in message


def test_tuple_outputs_are_compared_element_by_element():
    ids, mask = torch.tensor([[1, 0]]), torch.tensor([[True, False]])
    message = failure_of(expect_equal, (ids, ~mask), (ids, mask), what="pad_batch")
    assert "pad_batch[1]" in message


def test_float32_input_expects_float32_output_though_reference_runs_in_float64(reference):
    class ReturnsFloat64:
        def apply_rope(self, x, **kwargs):
            return reference.apply_rope(x.double(), **kwargs)

    message = failure_of(expect_call, ReturnsFloat64(), reference, "apply_rope", torch.randn(1, 1, 3, 4))
    assert "torch.float64" in message and "expected torch.float32" in message


def test_output_matching_a_catalogued_mistake_gets_its_hint(reference):
    from tests.first_course import catalogue

    mistake = next(m for m in catalogue("lm_head") if m.id == "logits-softmax")
    candidate = TrustedCandidate(trusted_namespace(COURSE, "mistake:logits-softmax"))
    message = failure_of(expect_call, candidate, reference, "lm_logits", torch.randn(2, 3, 4), torch.randn(7, 4))
    assert mistake.hint["en"] in message


def test_hint_is_in_the_students_language(reference):
    from tests.first_course import catalogue

    mistake = next(m for m in catalogue("lm_head") if m.id == "logits-softmax")
    checking.set_language("zh")
    candidate = TrustedCandidate(trusted_namespace(COURSE, "mistake:logits-softmax"))
    message = failure_of(expect_call, candidate, reference, "lm_logits", torch.randn(2, 3, 4), torch.randn(7, 4))
    assert mistake.hint["zh"] in message and mistake.hint["en"] not in message


def test_wrong_output_matching_no_mistake_gets_no_hint(reference):
    class Doubles:
        def lm_logits(self, hidden, weight):
            return 2 * hidden @ weight.T

    message = failure_of(expect_call, Doubles(), reference, "lm_logits", torch.randn(1, 2, 3), torch.randn(5, 3))
    assert "Hint" not in message


def test_expect_raises_passes_when_the_named_exception_is_raised():
    candidate = TrustedCandidate(trusted_namespace(COURSE, "solutions"))
    assert "ValueError" in expect_raises(candidate, "pad_batch", ValueError, [])


def test_expect_raises_fails_when_the_call_returns():
    candidate = TrustedCandidate(trusted_namespace(COURSE, "solutions"))
    message = failure_of(expect_raises, candidate, "encode", ValueError, ["a"], {"a": 1})
    assert "should raise ValueError" in message


def test_every_feedback_message_exists_in_both_languages():
    for key, texts in MESSAGES.items():
        assert set(texts) == set(LANGUAGES), key
        assert all(text.strip() for text in texts.values()), key


def test_a_dtype_mistake_gets_only_its_own_hint(reference):
    from tests.first_course import catalogue

    dtype_mistakes = [m for m in catalogue("embedding") if m.target == "one_hot_lookup" and m.id == "one-hot-float32"]
    assert dtype_mistakes, "the catalogue has no one-hot-float32 mistake (this test needs it)"
    candidate = TrustedCandidate(trusted_namespace(COURSE, "mistake:one-hot-float32"))
    weight, ids = torch.randn(6, 3, dtype=torch.float64), torch.tensor([[0, 5, 2]])
    message = failure_of(expect_call, candidate, reference, "one_hot_lookup", weight, ids)
    hints = [line for line in message.splitlines() if line.startswith("Hint:")]
    assert hints == [f"Hint: {dtype_mistakes[0].hint['en']}"]


@pytest.mark.parametrize(
    "shape, index", [((7,), (4,)), ((2, 3, 4), (1, 2, 3)), ((3, 1, 5), (2, 0, 0)), ((4096, 8), (4095, 7))]
)
def test_first_wrong_index_is_named_in_every_dimension(shape, index):
    expected = torch.zeros(shape)
    actual = expected.clone()
    actual[index] = 1.0
    actual.reshape(-1)[-1] = 1.0  # a later wrong element does not move the first one
    with pytest.raises(CheckFailure, match=r"wrong at index \[" + ", ".join(map(str, index)) + r"\]"):
        expect_close(actual, expected, what="out")


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_naming_the_wrong_index_imports_no_symbolic_shapes():
    """torch.unravel_index imports sympy (most of a second) the first time: the grader must not."""
    import subprocess
    import sys

    code = (
        "import sys, torch\nfrom grader.checking import CheckFailure, expect_close\n"
        "try:\n    expect_close(torch.ones(2, 3, 4), torch.zeros(2, 3, 4))\nexcept CheckFailure as e:\n"
        "    print(str(e).splitlines()[0])\nprint('sympy' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    first, imported = done.stdout.strip().splitlines()
    assert "index [0, 0, 0]" in first and imported == "False"
