"""Helpers shared by the exports: accepted spellings of a shape, Moodle grade fractions."""

from __future__ import annotations


def shape_forms(shape: list[int]) -> list[str]:
    """The ways a student may type a shape in an LMS short-answer box (LMSs compare strings)."""
    inner = [", ".join(map(str, shape)), ",".join(map(str, shape))]
    forms = [f"[{s}]" for s in inner] + [f"({s})" for s in inner] + inner
    forms += [" x ".join(map(str, shape)), "x".join(map(str, shape)), f"torch.Size([{inner[0]}])"]
    return list(dict.fromkeys(forms))


def fraction(percent: float) -> str:
    """A Moodle grade percentage: at most 5 decimals, no trailing zeros."""
    text = f"{percent:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
