"""grader/fingerprint.py: bounded, comparable within tolerance, and telling different outputs apart."""

from __future__ import annotations

import json

import torch

from grader.fingerprint import MAX_CHARS, agree, fingerprint, parse


def test_a_fingerprint_is_bounded_whatever_the_output():
    huge = {f"key{i}": [torch.randn(64, 64) for _ in range(10)] for i in range(100)}
    for value in (torch.randn(4096, 8), list(range(100_000)), huge, "x" * 10**6, None):
        text = fingerprint("value", value)
        assert len(text) <= MAX_CHARS and parse(text) is not None


def test_outputs_within_tolerance_agree_and_others_do_not():
    base = torch.randn(3, 5, dtype=torch.float64)
    same = parse(fingerprint("value", base + 1e-7))
    assert agree(parse(fingerprint("value", base)), same)
    assert not agree(parse(fingerprint("value", base)), parse(fingerprint("value", base + 1e-2)))
    assert not agree(parse(fingerprint("value", base)), parse(fingerprint("value", base.float())))  # dtype
    assert not agree(parse(fingerprint("value", [1, 2, 3])), parse(fingerprint("value", [1, 2, 4])))
    assert agree(parse(fingerprint("raised", "KeyError")), parse(fingerprint("raised", "KeyError")))
    assert not agree(parse(fingerprint("raised", "KeyError")), parse(fingerprint("returned", None)))


def test_non_finite_values_are_kept_as_text():
    data = json.loads(fingerprint("value", torch.tensor([float("nan"), float("inf"), 1.0])))
    assert "nan" in data["sample"] and "inf" in data["sample"]


def test_text_that_is_not_a_fingerprint_is_refused():
    assert parse("") is None and parse("not json") is None and parse("[1, 2]") is None
    assert parse("{" + " " * MAX_CHARS + "}") is None
