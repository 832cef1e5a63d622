"""Red team, round 4 (issue 35), item 6: untrusted text is parsed in linear time. The quiz's
number and shape parsers scan each character once; they accept exactly what their former
patterns accepted (the patterns, run here on short texts where backtracking costs nothing, are
the oracle), and a 40 000-digit answer followed by a letter is refused at once (24 s before)."""

from __future__ import annotations

import random
import re
import time

import pytest

from coursegen.quiz.grade import parse_number, parse_shape

OLD_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
OLD_SHAPE = re.compile(r"[\[\(]?\s*\d+(\s*(,|x|×|\*)\s*\d+)*\s*,?\s*[\]\)]?")


def old_number(response: str) -> float | None:
    text = re.sub(r"\s+", "", response)
    return float(text) if OLD_NUMBER.fullmatch(text) else None


def old_shape(response: str) -> list[int] | None:
    text = re.sub(r"^torch\.Size\((.*)\)$", r"\1", response.strip())
    return [int(n) for n in re.findall(r"\d+", text)] if OLD_SHAPE.fullmatch(text) else None


def texts(alphabet: str, count: int = 20000, seed: int = 35) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))) for _ in range(count)]


def test_the_number_parser_accepts_what_its_pattern_accepted():
    cases = texts("0123456789.eE+- a٣\t") + ["1", "-1.5e3", ".5", "5.", "+.5e-2", "1e", "e1", ".", "1.2.3", " 4 2 "]
    assert [parse_number(t) for t in cases] == [old_number(t) for t in cases]


def test_the_shape_parser_accepts_what_its_pattern_accepted():
    cases = texts("0123456789,x×*[]() a\t", 30000) + [
        "torch.Size([2, 3])",
        "(4,)",
        "2 x 3",
        "[2, 3, ]",
        "2x",
        "[]",
        "torch.Size([])",
        "(2 3)",
    ]
    assert [parse_shape(t) for t in cases] == [old_shape(t) for t in cases]


@pytest.mark.parametrize(
    "text",
    [
        "1" * 40000 + "a",
        "1" * 40000 + ".5e" + "1" * 40000 + "a",
        "-" + "1" * 40000 + "x",
        "[" + "1 " * 20000 + "a",
        "1" + " " * 40000 + "a",
        "1" + ",1" * 20000 + "a",
        "1" * 40000,
        "torch.Size([" + "1," * 20000 + "x])",
    ],
    ids=["digits-letter", "mantissa-exponent-letter", "signed", "spaced", "spaces", "commas", "digits", "size"],
)
def test_a_long_answer_is_parsed_or_refused_at_once(text):
    started = time.process_time()
    parse_number(text)
    parse_shape(text)
    assert time.process_time() - started < 2.0  # linear: milliseconds; the former pattern took 24 s
