"""Precomputed reference values: feedback that runs where students can read everything.

A GitHub Classroom workflow runs in the student's own repository, so the package it
installs must not contain `solutions/`. The checks still need expected values; this module
supplies them from a recording:

* at export time (instructor's machine), the public checks of a lesson's exercises run
  against the reference solution with `COURSEGEN_RECORD=<dir>` set and a fixed public seed;
  every call the checks make on the `reference` fixture is recorded (arguments and results
  as JSON plus raw tensor bytes, never pickle) by `RecordingReference`;
* in the student repository, `COURSEGEN_REPLAY=<dir>` makes the `reference` fixture a
  `ReplayReference`, which answers the same calls from the recording, keyed by a stable
  hash of the function name and its arguments. The seed is forced to the recorded one, so
  the checks draw the same inputs; only the public checks of the recorded exercises run.

The feedback is never the authoritative grade (the student can edit the workflow): it only
spares students a wait for the real grader, which runs where they cannot reach.

Recording layout (a directory):
    index.json    {"format", "seed", "exercises", "calls": {key: entry}, "tensors": {sha: meta}}
    tensors.bin   the raw bytes of every tensor, concatenated in sha order (little-endian)

Objects (`reference.TiedLM(11, 4)`) are recorded too: operations on them form a chain
(attribute read, call, method call), each result keyed by the hash of the chain so far, so
a check that sets weights and then calls forward replays the same sequence.

Hooks for the grader's pytest plugin (grader/plugin.py) — see docs/architecture.md:
    replay.provide_reference(make_real)   the `reference` fixture's value
    replay.forced_seed()                  the seed to use instead of the run's secret one, or None
    replay.keep_item(exercise, hidden)    whether a collected check runs in this mode
    replay.session_finished()             writes the recording (record mode)
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import torch

FORMAT = "coursegen-replay/1"
RECORD_ENV = "COURSEGEN_RECORD"
REPLAY_ENV = "COURSEGEN_REPLAY"
PUBLIC_SEED = 20240601  # the fixed seed of every recording; public by design
INDEX_FILE = "index.json"
TENSOR_FILE = "tensors.bin"

# Exceptions a reference may raise on purpose (bad sizes, unknown tokens); replayed by type.
_REPLAYABLE_ERRORS: dict[str, type[BaseException]] = {
    e.__name__: e for e in (ValueError, TypeError, IndexError, KeyError, RuntimeError, NotImplementedError)
}


class ReplayError(RuntimeError):
    """The recording is unreadable or a value cannot be recorded (an instructor's problem)."""


class ReplayMiss(AssertionError):
    """A check asked for a value that was not precomputed (it depends on the student's output)."""

    def __init__(self, call: str) -> None:
        super().__init__(
            f"{call}: no precomputed expected value for these inputs; they come from your own "
            "output, which differs from the reference's. "
            f"/ {call}：这些输入来自你自己的输出，与参考实现不同，因此没有预先计算的期望值。"
        )


# ---------------------------------------------------------------------------------------------
# Values <-> JSON (+ raw tensor bytes)


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The raw bytes of a tensor, C-contiguous, in its own dtype."""
    t = t.detach().cpu().contiguous().clone()
    return bytes(t.untyped_storage())


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _dtype(name: str) -> torch.dtype:
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ReplayError(f"unknown dtype {name!r} in the recording")
    return dtype


@dataclass
class TensorStore:
    """Tensors by content hash (sha256 of dtype, shape and bytes)."""

    blobs: dict[str, tuple[str, list[int], bytes]] = field(default_factory=dict)

    def put(self, t: torch.Tensor) -> str:
        data = tensor_bytes(t)
        meta = (_dtype_name(t.dtype), list(t.shape))
        sha = hashlib.sha256(json.dumps(meta).encode() + b"\0" + data).hexdigest()
        self.blobs.setdefault(sha, (meta[0], meta[1], data))
        return sha

    def get(self, sha: str) -> torch.Tensor:
        try:
            dtype_name, shape, data = self.blobs[sha]
        except KeyError:
            raise ReplayError(f"tensor {sha[:12]} is missing from the recording") from None
        dtype = _dtype(dtype_name)
        if not data:
            return torch.empty(shape, dtype=dtype)
        return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape).clone()


def encode(value: Any, store: TensorStore | None) -> Any:
    """A JSON value for `value`. Tensors go to `store` (or, for keys, become their hash)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, torch.Tensor):
        if store is None:
            probe = TensorStore()
            return {"__tensor__": probe.put(value)}
        return {"__tensor__": store.put(value)}
    if isinstance(value, torch.dtype):
        return {"__dtype__": _dtype_name(value)}
    if isinstance(value, (tuple, torch.Size)):
        return {"__tuple__": [encode(v, store) for v in value]}
    if isinstance(value, list):
        return [encode(v, store) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, store), encode(v, store)] for k, v in value.items()]}
    raise ReplayError(f"cannot record a value of type {type(value).__name__}")


def decode(data: Any, store: TensorStore) -> Any:
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, store) for v in data]
    if isinstance(data, dict) and len(data) == 1:
        (tag, payload), = data.items()
        if tag == "__tensor__":
            return store.get(payload)
        if tag == "__float__":
            return float(payload)
        if tag == "__dtype__":
            return _dtype(payload)
        if tag == "__tuple__":
            return tuple(decode(v, store) for v in payload)
        if tag == "__dict__":
            return {decode(k, store): decode(v, store) for k, v in payload}
    raise ReplayError(f"unreadable value in the recording: {str(data)[:80]}")


def _is_plain_value(value: Any) -> bool:
    """True for what a recording stores as a value; anything else (a module, a method) is an object."""
    try:
        encode(value, TensorStore())
        return True
    except ReplayError:
        return False


def call_key(state: str, op: str, args: tuple = (), kwargs: dict | None = None) -> str:
    """The stable key of one operation: sha256 over the chain state, the operation, the arguments."""
    payload = [state, op, encode(list(args), None), encode(dict(sorted((kwargs or {}).items())), None)]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _describe(op: str, args: tuple, kwargs: dict | None) -> str:
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in sorted((kwargs or {}).items())]
    return f"{op}({', '.join(parts)})"


def _short(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"tensor{list(value.shape)}:{_dtype_name(value.dtype)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------------------------------
# The recording on disk


@dataclass
class Recording:
    seed: int = PUBLIC_SEED
    exercises: list[str] = field(default_factory=list)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    store: TensorStore = field(default_factory=TensorStore)

    def save(self, directory: Path) -> None:
        """Write index.json and tensors.bin (deterministic: sorted keys, tensors in sha order)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        used = _tensor_refs(self.calls)
        offset = 0
        tensors: dict[str, dict[str, Any]] = {}
        chunks: list[bytes] = []
        for sha in sorted(used):
            dtype_name, shape, data = self.store.blobs[sha]
            tensors[sha] = {"dtype": dtype_name, "shape": shape, "offset": offset, "nbytes": len(data)}
            chunks.append(data)
            offset += len(data)
        index = {
            "format": FORMAT,
            "seed": self.seed,
            "exercises": sorted(set(self.exercises)),
            "calls": self.calls,
            "tensors": tensors,
        }
        (directory / TENSOR_FILE).write_bytes(b"".join(chunks))
        (directory / INDEX_FILE).write_text(
            json.dumps(index, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )

    @classmethod
    def load(cls, directory: Path) -> "Recording":
        directory = Path(directory)
        try:
            index = json.loads((directory / INDEX_FILE).read_text(encoding="utf-8"))
            blob = (directory / TENSOR_FILE).read_bytes()
        except (OSError, ValueError) as exc:
            raise ReplayError(f"{directory}: not a readable recording ({exc})") from None
        if index.get("format") != FORMAT:
            raise ReplayError(f"{directory / INDEX_FILE}: format {index.get('format')!r}, expected {FORMAT!r}")
        store = TensorStore()
        for sha, meta in index["tensors"].items():
            data = blob[meta["offset"]: meta["offset"] + meta["nbytes"]]
            if len(data) != meta["nbytes"]:
                raise ReplayError(f"{directory / TENSOR_FILE}: truncated at tensor {sha[:12]}")
            store.blobs[sha] = (meta["dtype"], list(meta["shape"]), data)
        return cls(seed=int(index["seed"]), exercises=list(index["exercises"]), calls=index["calls"], store=store)

    def merge_from(self, directory: Path) -> None:
        """Add the calls of an existing recording (several grading sessions, one recording)."""
        other = Recording.load(directory)
        if other.seed != self.seed:
            raise ReplayError(f"{directory}: recorded with seed {other.seed}, not {self.seed}")
        self.exercises = sorted(set(self.exercises) | set(other.exercises))
        self.store.blobs.update(other.store.blobs)
        for key, entry in other.calls.items():
            self.calls.setdefault(key, entry)


def _tensor_refs(data: Any) -> set[str]:
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if len(item) == 1 and "__tensor__" in item:
                found.add(item["__tensor__"])
            else:
                stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


# ---------------------------------------------------------------------------------------------
# Recording: a transparent wrapper around the real reference namespace


class _Chain:
    """The mutable state of one recorded or replayed object (shared by its attributes)."""

    def __init__(self, state: str) -> None:
        self.state = state

    def advance(self, op: str, args: tuple = (), kwargs: dict | None = None) -> str:
        self.state = call_key(self.state, op, args, kwargs)
        return self.state


class RecordingReference:
    """Forwards every call to the real reference and records its result."""

    def __init__(self, real: Any, recording: Recording) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_recording", recording)

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._real, name)
        if _is_plain_value(target):
            return target
        return _RecordingFunction(name, target, self._recording)


class _RecordingFunction:
    def __init__(self, name: str, target: Any, recording: Recording) -> None:
        self._name, self._target, self._recording = name, target, recording

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = call_key("", self._name, args, kwargs)
        return _record(self._recording, key, self._name, args, kwargs, lambda: self._target(*args, **kwargs),
                       chain=None)


def _record(recording: Recording, key: str, op: str, args: tuple, kwargs: dict, run: Callable[[], Any],
            chain: _Chain | None) -> Any:
    entry: dict[str, Any] = {"call": _describe(op, args, kwargs),
                             "args": encode(list(args), recording.store),
                             "kwargs": encode(dict(kwargs), recording.store)}
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(key[:15], 16))  # e.g. a module's initial weights: same bytes every export
            result = run()
        if isinstance(result, Iterator) and not isinstance(result, torch.Tensor):
            result = list(result)  # named_parameters() and friends: replayed as a list
    except tuple(_REPLAYABLE_ERRORS.values()) as exc:
        entry["raises"] = {"type": type(exc).__name__, "message": str(exc)}
        recording.calls[key] = entry
        raise
    if _is_plain_value(result):
        entry["result"] = encode(result, recording.store)
        recording.calls[key] = entry
        return result
    entry["object"] = True
    recording.calls[key] = entry
    return _RecordingObject(result, recording, chain or _Chain(key))


class _RecordingObject:
    """A real reference object whose every operation extends its chain and is recorded."""

    def __init__(self, real: Any, recording: Recording, chain: _Chain) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_recording", recording)
        object.__setattr__(self, "_chain", chain)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        key = self._chain.advance(f".{name}")
        return _record(self._recording, key, f".{name}", (), {}, lambda: getattr(self._real, name), self._chain)

    def __setattr__(self, name: str, value: Any) -> None:
        key = self._chain.advance(f".{name}=", (value,))
        _record(self._recording, key, f".{name}=", (value,), {}, lambda: setattr(self._real, name, value),
                self._chain)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = self._chain.advance("()", args, kwargs)
        return _record(self._recording, key, "()", args, kwargs, lambda: self._real(*args, **kwargs), self._chain)


# ---------------------------------------------------------------------------------------------
# Replaying


class ReplayReference:
    """Answers the checks' reference calls from a recording; never runs reference code."""

    def __init__(self, recording: Recording) -> None:
        object.__setattr__(self, "_recording", recording)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _ReplayFunction(name, self._recording)


class _ReplayFunction:
    def __init__(self, name: str, recording: Recording) -> None:
        self._name, self._recording = name, recording

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = call_key("", self._name, args, kwargs)
        return _replay(self._recording, key, _describe(self._name, args, kwargs), None)


def _replay(recording: Recording, key: str, description: str, chain: _Chain | None) -> Any:
    entry = recording.calls.get(key)
    if entry is None:
        raise ReplayMiss(description)
    if "raises" in entry:
        error = _REPLAYABLE_ERRORS.get(entry["raises"]["type"], RuntimeError)
        raise error(entry["raises"]["message"])
    if entry.get("object"):
        return _ReplayObject(recording, chain or _Chain(key))
    return decode(entry.get("result"), recording.store)


class _ReplayObject:
    def __init__(self, recording: Recording, chain: _Chain) -> None:
        object.__setattr__(self, "_recording", recording)
        object.__setattr__(self, "_chain", chain)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        key = self._chain.advance(f".{name}")
        return _replay(self._recording, key, f"reference object .{name}", self._chain)

    def __setattr__(self, name: str, value: Any) -> None:
        key = self._chain.advance(f".{name}=", (value,))
        _replay(self._recording, key, f"reference object .{name} = ...", self._chain)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = self._chain.advance("()", args, kwargs)
        return _replay(self._recording, key, _describe("reference object", args, kwargs), self._chain)


# ---------------------------------------------------------------------------------------------
# Hooks for grader/plugin.py (the mode comes from the environment of the grading process)

_ACTIVE_RECORDING: Recording | None = None
_LOADED_REPLAY: Recording | None = None


def mode() -> str | None:
    """"record", "replay" or None (normal grading), from COURSEGEN_RECORD / COURSEGEN_REPLAY."""
    if os.environ.get(RECORD_ENV) and os.environ.get(REPLAY_ENV):
        raise ReplayError(f"set {RECORD_ENV} or {REPLAY_ENV}, not both")
    if os.environ.get(RECORD_ENV):
        return "record"
    if os.environ.get(REPLAY_ENV):
        return "replay"
    return None


def _replay_recording() -> Recording:
    global _LOADED_REPLAY
    path = Path(os.environ[REPLAY_ENV])
    if _LOADED_REPLAY is None or getattr(_LOADED_REPLAY, "_path", None) != path:
        _LOADED_REPLAY = Recording.load(path)
        _LOADED_REPLAY._path = path  # type: ignore[attr-defined]
    return _LOADED_REPLAY


def provide_reference(make_real: Callable[[], Any]) -> Any:
    """The value of the `reference` fixture: the real solutions, a recorder around them, or a
    replayer (which never calls `make_real`, so `solutions/` need not exist)."""
    global _ACTIVE_RECORDING
    current = mode()
    if current == "replay":
        return ReplayReference(_replay_recording())
    if current == "record":
        if _ACTIVE_RECORDING is None:
            _ACTIVE_RECORDING = Recording(seed=PUBLIC_SEED)
        return RecordingReference(make_real(), _ACTIVE_RECORDING)
    return make_real()


def forced_seed() -> int | None:
    """The seed the run must use instead of its secret one: the recording's, in both modes."""
    current = mode()
    if current == "replay":
        return _replay_recording().seed
    if current == "record":
        return PUBLIC_SEED
    return None


def keep_item(exercise: str | None, hidden: bool) -> bool:
    """Whether a collected check runs: in both modes only public checks, and when replaying
    only those of the recorded exercises. In record mode the checks' exercises are noted."""
    current = mode()
    if current is None:
        return True
    if hidden:
        return False
    if current == "replay":
        return exercise in _replay_recording().exercises
    global _ACTIVE_RECORDING
    if _ACTIVE_RECORDING is None:
        _ACTIVE_RECORDING = Recording(seed=PUBLIC_SEED)
    if exercise and exercise not in _ACTIVE_RECORDING.exercises:
        _ACTIVE_RECORDING.exercises.append(exercise)
    return True


def session_finished() -> None:
    """Record mode: write (merge into) the recording directory named by COURSEGEN_RECORD."""
    global _ACTIVE_RECORDING
    if mode() != "record" or _ACTIVE_RECORDING is None:
        return
    directory = Path(os.environ[RECORD_ENV])
    if (directory / INDEX_FILE).exists():
        _ACTIVE_RECORDING.merge_from(directory)
    _ACTIVE_RECORDING.save(directory)
    _ACTIVE_RECORDING = None
