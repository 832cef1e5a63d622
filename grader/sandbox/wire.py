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
    numpy.ndarray                   -> {"ndarray": [dtype, shape, offset, nbytes]} (bytes in the blob)
    numpy scalar (parent to child)  -> {"npscalar": [dtype, [], offset, nbytes]}
    object living in the child      -> {"ref": [id, type_name]} or [id, type_name, name]  (RemoteObject)
    function (parent to child only) -> {"function": {...}}, {"module": name}, {"partial": [...]}
                                       (grader/sandbox/passing.py: an importable name, or source
                                       plus closure values; rebuilt in the child, never in the parent)

torch and numpy are imported only when a value needs them (a course without torch never imports it).

Decoding is written for hostile input: every size, depth, dtype and offset is checked,
and any inconsistency raises ProtocolError (never another exception type).
"""

from __future__ import annotations

import json
import math
import struct
import sys

from typing import TYPE_CHECKING, Iterator, Mapping

from grader.jsonshape import shape_of

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch

# Student code may replace builtins (builtins.isinstance = ...); this module keeps the originals.
from builtins import any, bool, bytes, dict, float, int, isinstance, len, list, str, tuple, type  # noqa: E402,A004
from grader.errors import CoursegenError

HEADER = struct.Struct(">II")

TORCH_DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "bool",
)
# numpy arrays: the same kinds, with numpy's unsigned widths (no bfloat16: numpy has none)
NUMPY_DTYPES = frozenset(
    {
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    }
)


class _TorchDtypes(Mapping):
    """name -> torch.dtype, built when first used (importing torch then)."""

    def __init__(self, invert: bool = False):
        self.invert = invert
        self._table: dict | None = None

    def _get(self) -> dict:
        if self._table is None:
            try:
                import torch as real
            except ImportError:
                raise ImportError("torch dtypes are needed, and torch is not installed") from None
            table = {name: getattr(real, name) for name in TORCH_DTYPES}
            self._table = {v: k for k, v in table.items()} if self.invert else table
        return self._table

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self) -> Iterator:
        return iter(self._get())

    def __len__(self) -> int:
        return len(TORCH_DTYPES)

    def __contains__(self, key) -> bool:
        if not self.invert:
            return key in TORCH_DTYPES
        return key in self._get() if "torch" in sys.modules else False

    def get(self, key, default=None):
        if not self.invert:
            return self._get()[key] if type(key) is str and key in TORCH_DTYPES else default
        return self._get().get(key, default) if "torch" in sys.modules else default


DTYPES: Mapping[str, torch.dtype] = _TorchDtypes()
DTYPE_NAMES: Mapping[torch.dtype, str] = _TorchDtypes(invert=True)

MAX_DEPTH = 32  # nesting of lists/tuples/dicts
MAX_NODES = 100_000  # values in one message
MAX_DIMS = 16  # tensor rank
MAX_STR = 1_000_000  # characters in one string
MAX_JSON_DEPTH = 2 * MAX_DEPTH + 8  # JSON nesting: each tagged value adds an object and an array


class ProtocolError(CoursegenError):
    """A frame or value that does not follow the wire format."""


SUPPORTED = (
    "None, bool, int, float, str; lists, tuples and dicts of these; numpy arrays and scalars "
    "(dtypes bool, int8-64, uint8-64, float16/32/64, complex64/128); torch tensors and dtypes "
    "(dense, CPU); functions: importable ones by name (math.sin, numpy.cos, builtins), lambdas and "
    "functions defined in a check or a public course module (sent as source with the values they "
    "close over and the globals they use, each of them one of these types), functools.partial of "
    "these; objects the student's code returned"
)


class Unencodable(CoursegenError):
    """A value the wire format cannot carry (its type name is in .type_name; `reason` says why
    when it is not the type alone, `instead` what to do)."""

    def __init__(self, type_name: str, reason: str = "", instead: str = ""):
        super().__init__(type_name)
        self.type_name = type_name
        self.reason = reason
        self.instead = instead

    def sentence(self, what: str = "a value") -> str:
        """One located, actionable message: what could not be sent, why, what can, what to do."""
        article = "an" if self.type_name[:1].lower() in "aeiou" else "a"
        why = self.reason or f"{article} {self.type_name} cannot be sent to student code"
        instead = self.instead or (
            "convert it to one of these types in the check (e.g. a list or a numpy array), or pass "
            "a function that builds it in student code"
        )
        return f"{what}: {why}. What can cross to student code: {SUPPORTED}. Instead: {instead}."


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


def array_bytes(numpy, array) -> tuple[str, list[int], bytes]:
    """dtype name, shape and C-order native-endian bytes of a plain numpy array."""
    dtype = array.dtype
    if dtype.name not in NUMPY_DTYPES or dtype.fields is not None:
        raise Unencodable(
            f"numpy array of dtype {dtype}",
            f"a numpy array of dtype {dtype} cannot be sent (its dtype is not one of the numeric ones)",
            "convert it with .astype(numpy.float64) (or another numeric dtype), or pass a list",
        )
    if len(array.shape) > MAX_DIMS:
        raise Unencodable("numpy array", f"a numpy array of {len(array.shape)} dimensions (at most {MAX_DIMS})")
    plain = numpy.ascontiguousarray(array, dtype=dtype.newbyteorder("="))
    return dtype.name, [int(s) for s in array.shape], plain.tobytes()


class Encoder:
    """Turns one value tree into (json-able tree, blob). `on_other(obj)` handles any value the
    format does not know (the child turns modules into refs there); by default it raises
    Unencodable."""

    def __init__(self, on_other=None, plain_tensor=None, plain_array=None):
        self.chunks: list[bytes] = []
        self.offset = 0
        self.on_other = on_other
        self.plain_tensor = plain_tensor or (lambda t: t)
        self.plain_array = plain_array  # a numpy ndarray subclass -> a plain ndarray (the child's side)
        self.depth = 0  # the depth of the value `on_other` is asked about (it encodes parts at depth + 1)

    def encode(self, value, depth: int = 0):
        if depth > MAX_DEPTH:
            raise Unencodable("structure nested too deeply")
        if value is None or isinstance(value, (bool, str)):
            return value if type(value) in (bool, str, type(None)) else self._other(value, depth)
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
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(value, numpy.ndarray):
            if type(value) is not numpy.ndarray:
                if self.plain_array is None:
                    raise Unencodable(
                        type(value).__name__,
                        f"a {type(value).__name__} (a numpy array subclass) would lose what its subclass adds",
                        "pass numpy.asarray(value) (or value.data and value.mask separately)",
                    )
                value = self.plain_array(value)
            return {"ndarray": self._array(numpy, value)}
        if type(value) is list:
            return [self.encode(v, depth + 1) for v in value]
        if type(value) is tuple:
            return {"tuple": [self.encode(v, depth + 1) for v in value]}
        if type(value) is dict:
            return {"dict": [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]}
        return self._other(value, depth)

    def _array(self, numpy, value) -> list:
        name, shape, data = array_bytes(numpy, value)
        ref = [name, shape, self.offset, len(data)]
        self.chunks.append(data)
        self.offset += len(data)
        return ref

    def scalar(self, value) -> dict:
        """A numpy scalar (np.float32(1.5)) as itself: dtype and bytes (the parent's side)."""
        numpy = sys.modules["numpy"]  # imported: a numpy scalar is in hand
        return {"npscalar": self._array(numpy, numpy.asarray(value))}

    def _other(self, value, depth: int = 0):
        if self.on_other is not None:
            saved, self.depth = self.depth, depth
            try:
                return self.on_other(value)
            finally:
                self.depth = saved
        raise Unencodable(type(value).__name__)

    def blob(self) -> bytes:
        return b"".join(self.chunks)


def frame(message: dict, blob: bytes = b"") -> bytes:
    """One frame: header + JSON + blob. `message` must already be JSON-able."""
    body = json.dumps(message, separators=(",", ":"), allow_nan=True).encode()
    return HEADER.pack(len(body), len(blob)) + body + blob


# ---- decoding (hostile input) --------------------------------------------------------------


class FrameReader:
    """Accumulates bytes from a stream and yields complete frames as (json_bytes, blob).

    A malformed header ends the stream, but never the frames before it: `feed` returns the
    complete frames that came first (the runtime's "ready", then garbage the student's code wrote
    behind it) and records the fault in `broken`; the next `feed` raises it."""

    def __init__(self, max_json: int, max_blob: int):
        self.buffer = bytearray()
        self.max_json = max_json
        self.max_blob = max_blob
        self.broken: ProtocolError | None = None

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        if self.broken is not None:
            raise self.broken
        self.buffer += data
        frames: list[tuple[bytes, bytes]] = []
        while len(self.buffer) >= HEADER.size:
            json_len, blob_len = HEADER.unpack_from(self.buffer)
            if json_len > self.max_json or blob_len > self.max_blob:
                self.broken = ProtocolError(f"frame too large ({json_len} + {blob_len} bytes)")
                self.buffer.clear()
                if frames:
                    return frames
                raise self.broken
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

    def __init__(self, blob: bytes, max_elements: int, make_ref=None, make_callable=None):
        self.blob = blob
        self.max_elements = max_elements
        self.elements = 0
        self.nodes = 0
        self.make_ref = make_ref
        # functions, modules and partials are rebuilt in the child only (passing.rebuild); the
        # parent gives no make_callable, so such a node from the child is a ProtocolError there
        self.make_callable = make_callable

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
            if tag == "dtype" and type(payload) is str and payload in TORCH_DTYPES:
                try:
                    return DTYPES[payload]
                except ImportError:
                    raise ProtocolError("a torch dtype, but torch is not installed here") from None
            if tag == "ref" and self.make_ref is not None:
                return self._ref(payload)
            if tag in ("ndarray", "npscalar"):
                array = self._array(payload)
                return array[()] if tag == "npscalar" and array.ndim == 0 else array
            if tag in ("function", "module", "partial") and self.make_callable is not None:
                return self.make_callable(tag, payload, lambda n: self.decode(n, depth + 1))
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
        if (
            type(payload) is not list
            or len(payload) not in (2, 3)
            or type(payload[0]) is not int
            or any(type(p) is not str for p in payload[1:])
        ):
            raise ProtocolError("bad object reference")
        if len(payload) == 3:
            return self.make_ref(payload[0], payload[1][:80], payload[2][:80])
        return self.make_ref(payload[0], payload[1][:80])

    def _array(self, payload):
        if type(payload) is not list or len(payload) != 4:
            raise ProtocolError("bad array header")
        dtype_name, shape, offset, nbytes = payload
        if type(dtype_name) is not str or dtype_name not in NUMPY_DTYPES:
            raise ProtocolError("array dtype not allowed")
        if type(shape) is not list or len(shape) > MAX_DIMS or any(type(s) is not int or s < 0 for s in shape):
            raise ProtocolError("bad array shape")
        if type(offset) is not int or type(nbytes) is not int or offset < 0 or nbytes < 0:
            raise ProtocolError("bad array offset")
        numel = math.prod(shape)
        self.elements += numel
        if self.elements > self.max_elements:
            raise ProtocolError("array too large")
        try:
            import numpy
        except ImportError:
            raise ProtocolError("a numpy array, but numpy is not installed here") from None
        dtype = numpy.dtype(dtype_name)
        if numel * dtype.itemsize != nbytes or offset + nbytes > len(self.blob):
            raise ProtocolError("array size does not match its bytes")
        raw = bytearray(memoryview(self.blob)[offset : offset + nbytes])  # one copy, owned by the decoder
        if dtype_name == "bool":  # bytes other than 0/1 would make an invalid bool array
            return numpy.frombuffer(raw, dtype=numpy.uint8).reshape(shape) != 0
        return numpy.frombuffer(raw, dtype=dtype).reshape(shape)

    def _tensor(self, payload):
        if type(payload) is not list or len(payload) != 4:
            raise ProtocolError("bad tensor header")
        dtype_name, shape, offset, nbytes = payload
        if type(dtype_name) is not str or dtype_name not in TORCH_DTYPES:
            raise ProtocolError("tensor dtype not allowed")
        try:
            import torch
        except ImportError:
            raise ProtocolError("a tensor, but torch is not installed here") from None
        dtype = DTYPES[dtype_name]
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


def decode_value(node, blob: bytes, *, max_elements: int, make_ref=None, make_callable=None):
    """Decode one encoded value; any malformed input raises ProtocolError."""
    try:
        return Decoder(blob, max_elements, make_ref, make_callable).decode(node)
    except ProtocolError:
        raise
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError, RuntimeError) as exc:
        raise ProtocolError(f"undecodable value ({type(exc).__name__})") from None
