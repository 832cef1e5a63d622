"""Properties of the response parsing that the grader and the page rely on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from coursegen.quiz.exports.forms import shape_forms
from coursegen.quiz.grade import parse_number, parse_shape
from coursegen.quiz.schema import Tolerance
from coursegen.quiz.variants import format_number, format_shape, normalise_short
from tests.nonempty import nonempty

shapes = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=5)


@given(shapes)
def test_every_lms_spelling_of_a_shape_parses_back_to_it(shape):
    assert all(parse_shape(form) == shape for form in nonempty(shape_forms(shape) + [format_shape(shape)]))


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(min_value=0, max_value=8))
def test_displayed_number_is_within_half_a_unit_of_its_last_decimal(value, decimals):
    shown = parse_number(format_number(value, decimals))
    assert shown is not None and Tolerance(abs=0.5 * 10**-decimals + 1e-9 * abs(value)).accepts(shown, value)


@given(st.text(max_size=30))
def test_short_answer_normalisation_is_idempotent(text):
    assert normalise_short(normalise_short(text)) == normalise_short(text)


def test_numbers_that_are_not_plain_decimals_are_not_read():
    assert [parse_number(t) for t in ("inf", "nan", "1_000", "0x10", "3.5", " -2e-3 ")] == [
        None,
        None,
        None,
        None,
        3.5,
        -0.002,
    ]
