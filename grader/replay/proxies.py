"""The `reference` fixture's stand-ins: `RecordingReference` forwards every call to the real
reference and records it; `ReplayReference` answers the same calls from a recording and never
runs reference code.

Objects (`reference.LinearModel(3, 2)`) are recorded too: operations on them form a chain
(attribute read, call, method call), each result keyed by the hash of the chain so far, so
a check that sets weights and then calls forward replays the same sequence.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from .recording import Recording
from .values import call_key, describe, is_plain_value
from grader.errors import CoursegenError

# Exceptions a reference may raise on purpose (bad sizes, unknown tokens); replayed by type.
_REPLAYABLE_ERRORS: dict[str, type[BaseException]] = {
    e.__name__: e for e in (ValueError, TypeError, IndexError, KeyError, RuntimeError, NotImplementedError)
}


class ReplayMiss(CoursegenError, AssertionError):
    """A check asked for a value that was not precomputed (it depends on the student's output)."""

    def __init__(self, call: str) -> None:
        super().__init__(
            f"{call}: no precomputed expected value for these inputs; they come from your own "
            "output, which differs from the reference's. "
            f"/ {call}：这些输入来自你自己的输出，与参考实现不同，因此没有预先计算的期望值。"
        )


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
        if is_plain_value(target):
            return target
        return _RecordingFunction(name, target, self._recording)


class _RecordingFunction:
    def __init__(self, name: str, target: Any, recording: Recording) -> None:
        self._name, self._target, self._recording = name, target, recording

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = call_key("", self._name, args, kwargs)
        return _record(
            self._recording, key, self._name, args, kwargs, lambda: self._target(*args, **kwargs), chain=None
        )


def _record(
    recording: Recording, key: str, op: str, args: tuple, kwargs: dict, run: Callable[[], Any], chain: _Chain | None
) -> Any:
    entry: dict[str, Any] = {
        "call": describe(op, args, kwargs),
        "args": _fresh(list(args)),
        "kwargs": _fresh(dict(kwargs)),
    }
    try:
        real = sys.modules.get("torch")  # a course without torch never imports it
        with real.random.fork_rng(devices=[]) if real is not None else contextlib.nullcontext():
            if real is not None:
                real.manual_seed(int(key[:15], 16))  # e.g. a module's initial weights: same bytes every export
            result = run()
        if isinstance(result, Iterator) and not isinstance(result, torch.Tensor):
            result = list(result)  # named_parameters() and friends: replayed as a list
    except tuple(_REPLAYABLE_ERRORS.values()) as exc:
        entry["raises"] = {"type": type(exc).__name__, "message": str(exc)}
        recording.calls[key] = entry
        raise
    if is_plain_value(result):
        entry["result"] = _fresh(result)
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
        _record(self._recording, key, f".{name}=", (value,), {}, lambda: setattr(self._real, name, value), self._chain)

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
        return _replay(self._recording, key, describe(self._name, args, kwargs), None)


def _replay(recording: Recording, key: str, description: str, chain: _Chain | None) -> Any:
    entry = recording.calls.get(key)
    if entry is None:
        raise ReplayMiss(description)
    if "raises" in entry:
        error = _REPLAYABLE_ERRORS.get(entry["raises"]["type"], RuntimeError)
        raise error(entry["raises"]["message"])
    if entry.get("object"):
        return _ReplayObject(recording, chain or _Chain(key))
    return _fresh(entry.get("result"))


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
        return _replay(self._recording, key, describe("reference object", args, kwargs), self._chain)


def _fresh(value: Any) -> Any:
    """A copy of a recorded value that the check may change in place without changing the recording."""
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    return value
