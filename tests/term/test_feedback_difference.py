"""Issue 34, item 5: feedback states the difference. A failed value check shows enough significant
digits for the two numbers to differ, with the absolute and relative difference and the tolerance,
in English and Chinese; a hidden check whose preliminary step (right values on an ordinary input)
failed says that step failed, not the property the check protects."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from grader.checking.comparison import compare

from .course import REPO, make_term_course

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?")


def pairs_differing_at_the_8th_digit(count: int = 40) -> list[tuple[float, float]]:
    """(actual, expected) that agree to 7 significant digits and differ at the 8th."""
    rng = random.Random(34)
    found = []
    while len(found) < count:
        expected = rng.uniform(1, 10) * 10.0 ** rng.randint(-9, 9) * rng.choice((1, -1))
        exponent = math.floor(math.log10(abs(expected)))
        actual = expected + rng.choice((1, -1)) * rng.randint(1, 9) * 10.0 ** (exponent - 7)
        found.append((actual, expected))
    return found


def shown_numbers(message: str, before: str, after: str) -> float:
    match = re.search(re.escape(before) + r"\s*(" + NUMBER.pattern + ")" + re.escape(after), message)
    assert match, message
    return float(match.group(1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_numbers_that_differ_are_shown_differently_with_the_difference(lang):
    cases = pairs_differing_at_the_8th_digit()
    assert cases
    for actual, expected in cases:
        message = compare(actual, expected, 0.0, 1e-9, "f(x)", lang, None, None)
        assert message is not None
        if lang == "en":
            shown_actual = shown_numbers(message, "f(x) is", ", expected")
            shown_expected = shown_numbers(message, "expected", " (")
        else:
            shown_actual = shown_numbers(message, "f(x) 的值是", "，应为")
            shown_expected = shown_numbers(message, "应为", "（")
        assert shown_actual != shown_expected, message
        assert shown_actual == pytest.approx(actual, rel=1e-5) and shown_expected == pytest.approx(expected, rel=1e-5)
        words = ("differ by", "relative", "tolerance", "atol", "rtol") if lang == "en" else ("相差", "相对误差", "容差")
        assert all(word in message for word in words), message
        absolute = abs(actual - expected)
        difference = message.split("differ by" if lang == "en" else "相差", 1)[1]
        assert float(NUMBER.search(difference).group()) == pytest.approx(absolute, rel=1e-2), message


def test_arrays_lists_and_numpy_show_the_differing_element_the_same_way():
    expected = np.array([0.25, 1.5707963267948966, 3.0])
    actual = expected.copy()
    actual[1] = 1.5707964  # differs at the 8th significant digit
    for got, want in ((actual, expected), (list(actual), list(expected))):
        message = compare(got, want, 1e-9, 1e-9, "g(y)", "en", None, None)
        assert message is not None and "index [1]" in message
        assert "1.5707964" in message and "1.5707963" in message, message
        assert "differ by" in message and "tolerance" in message, message


def test_a_difference_at_the_first_digit_keeps_six_digits():
    message = compare(2.0, 1.0, 1e-5, 1e-5, "h()", "en", None, None)
    assert message.startswith("h() is 2, expected 1 (they differ by 1, relative 1;"), message


GUARDED_CHECK = """
import math

import pytest

from grader.checking import expect_raises, expect_working


@pytest.mark.exercise("trapezoid")
@pytest.mark.hidden(en="zero trapezoids raise ValueError", zh="零个梯形应抛出 ValueError")
def test_zero_trapezoids_raise(candidate, reference):
    expect_working(candidate, reference, "trapezoid", math.cos, 0.0, 1.0, 4)
    expect_raises(candidate, "trapezoid", ValueError, math.cos, 0.0, 1.0, 0)
"""

RAISES_BUT_WRONG = """
def trapezoid(f, a, b, n):
    if n < 1:
        raise ValueError("n must be at least 1")
    return 0.0
"""


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_preliminary_step_is_what_the_hidden_check_says(tmp_path, lang):
    root = make_term_course(tmp_path / "course")
    (root / "grader" / "checks" / "test_guarded.py").write_text(GUARDED_CHECK, encoding="utf-8")
    student = tmp_path / "quadrature.py"
    student.write_text(RAISES_BUT_WRONG, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "grade", str(student), "--root", str(root), "--lang", lang,
         "--format", "gradescope"],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    tests = {t["name"].split(": ", 1)[1]: t for t in json.loads(done.stdout)["tests"]}
    guarded = tests["test_zero_trapezoids_raise"]
    assert guarded["status"] == "failed"
    if lang == "en":
        assert "failed at its first step" in guarded["output"] and "ordinary input" in guarded["output"]
        assert "raise ValueError" not in guarded["output"]
    else:
        assert "第一步" in guarded["output"] and "普通输入" in guarded["output"]
        assert "ValueError" not in guarded["output"]
