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


class ReplayError(RuntimeError):
    """The recording is unreadable or a value cannot be recorded (an instructor's problem)."""


def _encoder() -> wire.Encoder:
    encoder: wire.Encoder

    def other(value: Any) -> Any:
        if isinstance(value, torch.Size):
            return encoder.encode(tuple(value))
        raise ReplayError(f"cannot record a value of type {type(value).__name__}")

    encoder = wire.Encoder(on_other=other)
    return encoder


def encode_values(values: list[Any]) -> tuple[list[Any], bytes]:
    """JSON trees for `values` and the blob their tensors' bytes live in."""
    encoder = _encoder()
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
    (tree,), blob = encode_values([[state, op, list(args), dict(sorted((kwargs or {}).items()))]])
    return hashlib.sha256(json.dumps(tree, sort_keys=True, ensure_ascii=True).encode() + b"\0" + blob).hexdigest()


def describe(op: str, args: tuple, kwargs: dict | None) -> str:
    """`op(tensor[2, 3]:float32, n=4)`: an operation as the student reads it in a miss."""
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in sorted((kwargs or {}).items())]
    return f"{op}({', '.join(parts)})"


def _short(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}:{str(value.dtype).removeprefix('torch.')}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
