"""A small, bounded summary of one wrong output: what `coursegen mistakes propose` compares.

When a check fails, the grader (the trusted parent) summarises the student's output that made it
fail, from the data it already decoded for the comparison: the kind of failure ("value": a wrong
value was returned, "raised": an exception where a value was due, "returned": a value where an
exception was due, "changed": an argument changed by the call), the structure of the value
(types, dtypes, shapes), the number of elements, their sum and sum of absolute values, and up to
SAMPLE elements at evenly spaced places of the flattened value. It is JSON text of at most
MAX_CHARS characters, stored in the gradebook beside the check; nothing in it is ever unpickled.

Two students whose outputs on a run's inputs agree within tolerance have fingerprints that
`agree`: the same kind and structure, and every number within TOLERANCE.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

SAMPLE = 24
MAX_CHARS = 1200
MAX_STRUCTURE = 160
ATOL, RTOL = 1e-4, 1e-4


def fingerprint(kind: str, value: Any = None) -> str:
    """The fingerprint (JSON text) of `value`, the output of a failure of `kind`."""
    chunks: list[Any] = []  # the value's numbers, as float64 pieces (1-D tensors, arrays or lists)
    structure = _structure(value, chunks)[:MAX_STRUCTURE]
    if kind == "raised":  # the exception's type name is the whole story
        return json.dumps({"kind": kind, "type": str(value)[:80]}, sort_keys=True)
    count = sum(len(chunk) for chunk in chunks)
    if count:
        places = [round(i * (count - 1) / (SAMPLE - 1)) for i in range(SAMPLE)] if count > SAMPLE else range(count)
        sample = [_number(_at(chunks, place)) for place in places]
        total = _number(sum(_sum(chunk) for chunk in chunks))
        absolute = _number(sum(_sum(chunk, absolute=True) for chunk in chunks))
    else:
        sample, total, absolute = [], 0.0, 0.0
    data = {"kind": kind, "structure": structure, "n": count, "sum": total, "abs": absolute, "sample": sample}
    text = json.dumps(data, sort_keys=True)
    return text[:MAX_CHARS] if len(text) <= MAX_CHARS else json.dumps({**data, "sample": sample[:8]}, sort_keys=True)


def _at(chunks: list[Any], place: int) -> float:
    for chunk in chunks:
        if place < len(chunk):
            return float(chunk[place])
        place -= len(chunk)
    raise IndexError(place)


def _sum(chunk: Any, absolute: bool = False) -> float:
    if isinstance(chunk, list):
        return math.fsum(abs(v) for v in chunk) if absolute else math.fsum(chunk)
    return float((abs(chunk) if absolute else chunk).sum())  # a float64 tensor or array


def parse(text: str) -> dict | None:
    """A stored fingerprint as a dict, or None when it is empty or not one (a bounded read:
    longer text is refused before parsing)."""
    if not isinstance(text, str) or not text or len(text) > MAX_CHARS:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("kind"), str) else None


def agree(first: dict | None, second: dict | None) -> bool:
    """Whether two parsed fingerprints describe the same wrong output within tolerance."""
    if first is None or second is None:
        return False
    if first.get("kind") != second.get("kind"):
        return False
    if first["kind"] == "raised":
        return first.get("type") == second.get("type")
    if first.get("structure") != second.get("structure") or first.get("n") != second.get("n"):
        return False
    a = [first.get("sum"), first.get("abs"), *(first.get("sample") or [])]
    b = [second.get("sum"), second.get("abs"), *(second.get("sample") or [])]
    if len(a) != len(b):
        return False
    scale = max([1.0] + [abs(v) for v in a if isinstance(v, (int, float)) and math.isfinite(v)])
    return all(_close(x, y, scale) for x, y in zip(a, b))


def _close(x: Any, y: Any, scale: float) -> bool:
    if isinstance(x, str) or isinstance(y, str):  # "nan", "inf", "-inf"
        return x == y
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        return False
    return abs(x - y) <= ATOL * scale + RTOL * abs(y)


def _number(v: float) -> float | str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(f"{v:.7g}")


def _float(v: int | float) -> float:
    """`v` as a float; a whole number too large for one (a student may return 10**400) as +-inf."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _structure(value: Any, numbers: list[Any]) -> str:
    """A short description of `value`'s types and shapes; its numbers go to `numbers` (float64).
    Tensors and arrays are read only when their library is already imported (by the course's
    code): a course without torch or numpy never imports them here."""
    torch, numpy = sys.modules.get("torch"), sys.modules.get("numpy")
    if torch is not None and isinstance(value, torch.Tensor):
        t = value.detach()
        if t.is_complex():
            t = torch.view_as_real(t)
        numbers.append(t.reshape(-1).to(torch.float64))
        return f"T{str(value.dtype).replace('torch.', '')}{list(value.shape)}"
    if numpy is not None and isinstance(value, numpy.ndarray) and value.dtype.kind in "biufc":
        a = numpy.stack([value.real, value.imag], axis=-1) if value.dtype.kind == "c" else value
        numbers.append(numpy.ascontiguousarray(a).reshape(-1).astype(numpy.float64))
        return f"A{value.dtype}{list(value.shape)}"
    if isinstance(value, bool):
        numbers.append([float(value)])
        return "b"
    if isinstance(value, (int, float)):
        numbers.append([_float(value)])
        return "i" if isinstance(value, int) else "f"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            numbers.append([_float(v) for v in value])
            kinds = "i" if all(isinstance(v, int) for v in value) else "f"
            return f"{'L' if isinstance(value, list) else 'U'}{len(value)}{kinds}"
        inner = ",".join(_structure(v, numbers) for v in value[:64])
        return f"{'L' if isinstance(value, list) else 'U'}{len(value)}({inner[:MAX_STRUCTURE]})"
    if isinstance(value, dict):
        inner = ",".join(f"{str(k)[:20]}:{_structure(value[k], numbers)}" for k in list(value)[:32])
        return f"D({inner[:MAX_STRUCTURE]})"
    if value is None:
        return "N"
    if isinstance(value, str):
        return f"s{len(value)}"
    return type(value).__name__[:20]
