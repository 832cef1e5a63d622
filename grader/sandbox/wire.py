"""The wire format between the grader and the sandboxed child: data only, never pickles.

A frame is an 8-byte header (two big-endian u32: JSON length, blob length), then a UTF-8
JSON document, then one blob holding the raw bytes of every tensor in the message.

Values are encoded as a JSON tree with tags, so that every Python shape the exercise API
uses survives the trip and nothing else does:

    None, bool, int, float, str     -> themselves (floats may be NaN/Infinity)
    list                            -> JSON array
    tuple                           -> {"tuple": [...]}
    dict                            -> {"dict": [[key, value], ...]}
    torch.Tensor                    -> {"tensor": [dtype, shape, offset, nbytes]}  (bytes in the blob)
    torch.dtype                     -> {"dtype": name}
    object living in the child      -> {"ref": [id, type_name]}                    (RemoteObject)

Decoding is written for hostile input: every size, depth, dtype and offset is checked,
and any inconsistency raises ProtocolError (never another exception type).
"""

from __future__ import annotations

import json
import math
import struct

import torch

from grader.jsonshape import shape_of

# Student code may replace builtins (builtins.isinstance = ...); this module keeps the originals.
from builtins import any, bool, bytes, dict, float, int, isinstance, len, list, str, tuple, type  # noqa: E402,A004

HEADER = struct.Struct(">II")

DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}
DTYPE_NAMES: dict[torch.dtype, str] = {v: k for k, v in DTYPES.items()}

MAX_DEPTH = 32  # nesting of lists/tuples/dicts
MAX_NODES = 100_000  # values in one message
MAX_DIMS = 16  # tensor rank
MAX_STR = 1_000_000  # characters in one string
MAX_JSON_DEPTH = 2 * MAX_DEPTH + 8  # JSON nesting: each tagged value adds an object and an array


class ProtocolError(Exception):
    """A frame or value that does not follow the wire format."""


class Unencodable(Exception):
    """A value the wire format cannot carry (its type name is in .type_name)."""

    def __init__(self, type_name: str):
        super().__init__(type_name)
        self.type_name = type_name


# ---- encoding (both sides) -----------------------------------------------------------------


def tensor_bytes(tensor: torch.Tensor) -> tuple[str, list[int], bytes]:
    """dtype name, shape and contiguous bytes of a plain dense CPU tensor."""
    name = DTYPE_NAMES.get(tensor.dtype)
    if name is None or tensor.layout != torch.strided or tensor.device.type != "cpu":
        raise Unencodable(f"{tensor.layout} {tensor.dtype} tensor on {tensor.device}")
    flat = tensor.detach().resolve_conj().resolve_neg().contiguous().reshape(-1)
    data = _raw_bytes(flat) if flat.numel() else b""
    return name, list(tensor.shape), data


def _raw_bytes(flat: torch.Tensor) -> bytes:
    """The bytes of a contiguous 1-D tensor, copied by torch alone into a bytearray (no
    `.numpy()`: the exported graders run where numpy is not installed)."""
    buffer = bytearray(flat.numel() * flat.element_size())
    torch.frombuffer(buffer, dtype=torch.uint8).copy_(flat.view(torch.uint8))
    return bytes(buffer)


class Encoder:
    """Turns one value tree into (json-able tree, blob). `on_other(obj)` handles any value the
    format does not know (the child turns modules into refs there); by default it raises
    Unencodable."""

    def __init__(self, on_other=None, plain_tensor=None):
        self.chunks: list[bytes] = []
        self.offset = 0
        self.on_other = on_other
        self.plain_tensor = plain_tensor or (lambda t: t)

    def encode(self, value, depth: int = 0):
        if depth > MAX_DEPTH:
            raise Unencodable("structure nested too deeply")
        if value is None or isinstance(value, (bool, str)):
            return value if type(value) in (bool, str, type(None)) else self._other(value)
        if type(value) is int:
            return value
        if type(value) is float:
            return value
        if isinstance(value, torch.Tensor):
            name, shape, data = tensor_bytes(self.plain_tensor(value))
            ref = [name, shape, self.offset, len(data)]
            self.chunks.append(data)
            self.offset += len(data)
            return {"tensor": ref}
        if isinstance(value, torch.dtype) and value in DTYPE_NAMES:
            return {"dtype": DTYPE_NAMES[value]}
        if type(value) is list:
            return [self.encode(v, depth + 1) for v in value]
        if type(value) is tuple:
            return {"tuple": [self.encode(v, depth + 1) for v in value]}
        if type(value) is dict:
            return {"dict": [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]}
        return self._other(value)

    def _other(self, value):
        if self.on_other is not None:
            return self.on_other(value)
        raise Unencodable(type(value).__name__)

    def blob(self) -> bytes:
        return b"".join(self.chunks)


def frame(message: dict, blob: bytes = b"") -> bytes:
    """One frame: header + JSON + blob. `message` must already be JSON-able."""
    body = json.dumps(message, separators=(",", ":"), allow_nan=True).encode()
    return HEADER.pack(len(body), len(blob)) + body + blob


# ---- decoding (hostile input) --------------------------------------------------------------


class FrameReader:
    """Accumulates bytes from a stream and yields complete frames as (json_bytes, blob)."""

    def __init__(self, max_json: int, max_blob: int):
        self.buffer = bytearray()
        self.max_json = max_json
        self.max_blob = max_blob

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self.buffer += data
        frames = []
        while len(self.buffer) >= HEADER.size:
            json_len, blob_len = HEADER.unpack_from(self.buffer)
            if json_len > self.max_json or blob_len > self.max_blob:
                raise ProtocolError(f"frame too large ({json_len} + {blob_len} bytes)")
            end = HEADER.size + json_len + blob_len
            if len(self.buffer) < end:
                break
            view = memoryview(self.buffer)
            body = bytes(view[HEADER.size : HEADER.size + json_len])
            blob = bytes(view[HEADER.size + json_len : end])
            view.release()
            del self.buffer[:end]
            frames.append((body, blob))
        return frames


def check_json_shape(body: bytes) -> None:
    """Count the values and nesting of a JSON document before it is decoded, so that a hostile
    frame (63 MB of `{}`) is refused at the cost of one scan, never built as millions of objects."""
    values, depth = shape_of(body, MAX_NODES)
    if values > MAX_NODES:
        raise ProtocolError("too many values")
    if depth > MAX_JSON_DEPTH:
        raise ProtocolError("structure nested too deeply")


def parse_json(body: bytes) -> dict:
    check_json_shape(body)
    try:
        message = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"invalid JSON: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object")
    return message


class Decoder:
    """Rebuilds a value tree from JSON + blob; tensors are fresh parent-owned copies."""

    def __init__(self, blob: bytes, max_elements: int, make_ref=None):
        self.blob = blob
        self.max_elements = max_elements
        self.elements = 0
        self.nodes = 0
        self.make_ref = make_ref

    def decode(self, node, depth: int = 0):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ProtocolError("too many values")
        if depth > MAX_DEPTH:
            raise ProtocolError("structure nested too deeply")
        if node is None or type(node) in (bool, int, float):
            return node
        if type(node) is str:
            if len(node) > MAX_STR:
                raise ProtocolError("string too long")
            return node
        if type(node) is list:
            return [self.decode(v, depth + 1) for v in node]
        if type(node) is dict and len(node) == 1:
            ((tag, payload),) = node.items()
            if tag == "tuple" and type(payload) is list:
                return tuple(self.decode(v, depth + 1) for v in payload)
            if tag == "dict" and type(payload) is list:
                return self._dict(payload, depth)
            if tag == "tensor":
                return self._tensor(payload)
            if tag == "dtype" and type(payload) is str and payload in DTYPES:
                return DTYPES[payload]
            if tag == "ref" and self.make_ref is not None:
                return self._ref(payload)
        raise ProtocolError("unknown value")

    def _dict(self, pairs, depth):
        out = {}
        for pair in pairs:
            if type(pair) is not list or len(pair) != 2:
                raise ProtocolError("bad dict entry")
            key = self.decode(pair[0], depth + 1)
            try:
                hash(key)
            except TypeError:
                raise ProtocolError("unhashable dict key") from None
            out[key] = self.decode(pair[1], depth + 1)
        return out

    def _ref(self, payload):
        if type(payload) is not list or len(payload) != 2 or type(payload[0]) is not int or type(payload[1]) is not str:
            raise ProtocolError("bad object reference")
        return self.make_ref(payload[0], payload[1][:80])

    def _tensor(self, payload):
        if type(payload) is not list or len(payload) != 4:
            raise ProtocolError("bad tensor header")
        dtype_name, shape, offset, nbytes = payload
        dtype = DTYPES.get(dtype_name) if type(dtype_name) is str else None
        if dtype is None:
            raise ProtocolError("tensor dtype not allowed")
        if type(shape) is not list or len(shape) > MAX_DIMS or any(type(s) is not int or s < 0 for s in shape):
            raise ProtocolError("bad tensor shape")
        if type(offset) is not int or type(nbytes) is not int or offset < 0 or nbytes < 0:
            raise ProtocolError("bad tensor offset")
        numel = math.prod(shape)
        self.elements += numel
        if self.elements > self.max_elements:
            raise ProtocolError("tensor too large")
        itemsize = torch.empty((), dtype=dtype).element_size()
        if numel * itemsize != nbytes or offset + nbytes > len(self.blob):
            raise ProtocolError("tensor size does not match its bytes")
        if numel == 0:
            return torch.empty(shape, dtype=dtype)
        raw = bytearray(memoryview(self.blob)[offset : offset + nbytes])  # one copy, owned by the parent
        if dtype == torch.bool:  # bytes other than 0/1 would make an invalid bool tensor
            return torch.frombuffer(raw, dtype=torch.uint8).ne(0).reshape(shape)
        return torch.frombuffer(raw, dtype=dtype).reshape(shape)


def decode_value(node, blob: bytes, *, max_elements: int, make_ref=None):
    """Decode one encoded value; any malformed input raises ProtocolError."""
    try:
        return Decoder(blob, max_elements, make_ref).decode(node)
    except ProtocolError:
        raise
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError, RuntimeError) as exc:
        raise ProtocolError(f"undecodable value ({type(exc).__name__})") from None
