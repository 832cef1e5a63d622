"""How a variant's values are written: bilingual texts, numbers, shapes, short answers.

Shared by the variant maker (coursegen.quiz.variants) and the question kinds
(coursegen.quiz.kinds), which import nothing of each other's.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from .question_model import Tolerance


def bilingual(text: Any) -> dict[str, str]:
    """A schema Text (or a {"en", "zh"} dict) as a dict; a missing zh falls back to en."""
    if isinstance(text, dict):
        return {"en": text["en"], "zh": text.get("zh") or text["en"]}
    return {"en": text.en, "zh": text.zh or text.en}


def same_in_both(s: str) -> dict[str, str]:
    return {"en": s, "zh": s}


def format_number(value: float, decimals: int) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.{decimals}f}"
    return "0" if text in ("-0", "-0." + "0" * decimals) else text


def short_number(value: Any, digits: int = 4) -> str:
    """`value` to at most `digits` significant digits, without an exponent or a trailing '.0'
    (68320.0 -> '68320', -11.17325877522894 -> '-11.17', 0.000123456 -> '0.0001235'): how a number
    a person reads aloud is printed (a deck's speaker notes). A shape (a list) prints as a shape."""
    if isinstance(value, (list, tuple)):
        return format_shape(list(value))
    if isinstance(value, str) or isinstance(value, bool):
        return str(value)
    value = float(value)
    if not math.isfinite(value) or value == 0:
        return "0" if value == 0 else str(value)
    rounded = float(f"{value:.{digits}g}")
    if rounded.is_integer():
        return str(int(rounded))
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")


def format_shape(shape: list[int]) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def tolerance_of(item: dict) -> Tolerance:
    return Tolerance(**item["tolerance"])


def normalise_short(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .。!！?？'\"“”‘’`")
