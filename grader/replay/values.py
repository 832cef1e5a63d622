"""Values of a recording <-> JSON + one blob, with the wire codec of the sandbox
(grader/sandbox/wire.py): the same tags ("tuple", "dict", "tensor", "dtype") and the same
bounds-checked decoder, so there is one tensor codec in the grader. Never pickle.

    encode_values(values) -> (trees, blob)       one Encoder over several values
    decode_value(tree, blob)                     the inverse; malformed input -> ReplayError
    call_key(state, op, args, kwargs)            stable sha256 of an operation and its arguments
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.sandbox import wire
from grader.errors import CoursegenError


class ReplayError(CoursegenError, RuntimeError):
    """The recording is unreadable or a value cannot be recorded (an instructor's problem)."""


def _encoder(functions: bool = False) -> wire.Encoder:
    """`functions`: functions (arguments a check passes) become markers (`_function_marker`)."""
    encoder: wire.Encoder

    def other(value: Any) -> Any:
        if isinstance(value, torch.Size):
            return encoder.encode(tuple(value))
        function = _function_marker(value) if functions else None
        if function is not None:
            return function
        raise ReplayError(f"cannot record a value of type {type(value).__name__}")

    encoder = wire.Encoder(on_other=other)
    return encoder


def _function_marker(value: Any) -> str | None:
    """A function a check passes (trapezoid(math.sin, ...)), recorded as a string naming it and a
    digest of what the sandbox would send for it (its importable name, or its source and closure
    values): the same function gives the same key at replay, and no code is ever stored or rebuilt."""
    from grader.sandbox import passing

    inner = _encoder(functions=True)
    try:
        node = passing.encode_callable(value, lambda v: inner.encode(v, inner.depth + 1))
    except wire.Unencodable as exc:
        raise ReplayError(f"cannot record a value of type {exc.type_name}: {exc.reason}") from None
    if node is None:
        return None
    digest = hashlib.sha256(json.dumps(node, sort_keys=True).encode() + b"\0" + inner.blob()).hexdigest()[:16]
    name = getattr(value, "__qualname__", None) or type(value).__name__
    return f"<function {name} {digest}>"


def encode_values(values: list[Any], functions: bool = False) -> tuple[list[Any], bytes]:
    """JSON trees for `values` and the blob their tensors' bytes live in (`functions`: arguments,
    where a function a check passes is recorded as its marker; a result never is)."""
    encoder = _encoder(functions)
    try:
        trees = [encoder.encode(v) for v in values]
    except wire.Unencodable as exc:
        raise ReplayError(f"cannot record a value of type {exc.type_name}") from None
    return trees, encoder.blob()


def decode_value(tree: Any, blob: bytes) -> Any:
    try:
        return wire.decode_value(tree, blob, max_elements=max(len(blob), 1))
    except wire.ProtocolError as exc:
        raise ReplayError(f"unreadable value in the recording ({exc})") from None


def is_plain_value(value: Any) -> bool:
    """True for what a recording stores as a value; anything else (a module, a method) is an object."""
    try:
        encode_values([value])
        return True
    except ReplayError:
        return False


def call_key(state: str, op: str, args: tuple = (), kwargs: dict | None = None) -> str:
    """The stable key of one operation: sha256 over the chain state, the operation, the arguments."""
    (tree,), blob = encode_values([[state, op, list(args), dict(sorted((kwargs or {}).items()))]], functions=True)
    return hashlib.sha256(json.dumps(tree, sort_keys=True, ensure_ascii=True).encode() + b"\0" + blob).hexdigest()


def describe(op: str, args: tuple, kwargs: dict | None) -> str:
    """`op(tensor[2, 3]:float32, n=4)`: an operation as the student reads it in a miss."""
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in sorted((kwargs or {}).items())]
    return f"{op}({', '.join(parts)})"


def _short(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}:{str(value.dtype).removeprefix('torch.')}"
    if callable(value) and not isinstance(value, type):  # a function's repr holds its address
        text = getattr(value, "__qualname__", None) or type(value).__name__
    else:
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
