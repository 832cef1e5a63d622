"""What trusted code (a reference, a catalogued mistake) returned on inputs already seen in this run.

A check draws its inputs from the run's seed and its own name, so every submission of a batch gets
the same inputs, and the reference's and the mistakes' outputs on them are the same for every
submission: each is computed once per grading process and looked up afterwards.

    key = inputs_key(args, kwargs)                  a digest of the inputs' contents, or None
    call(fn, key, variant, lambda: fn(*a, **k))     the result, computed at most once per key
    known(fn, key, variant)                         the result if computed already, else MISSING

The key digests every value (dtype, shape and bytes of each tensor), so a different input never
gets another input's result; values of other types make the key None (not cached). Results are
kept as copies and handed out as copies (a caller may write into what it gets), only for plain
functions and classes (a class's result is what a check's scenario observed of it, keyed by the
scenario's code and what it reads: grader.checking.runs.Observation), at most MAX_ENTRY bytes each
and MAX_BYTES in all. What a catalogued mistake (a function) raised is kept as its result, when it is
an exception its inputs alone decide (KEPT_EXCEPTIONS): asked again, a fresh copy is raised; a
reference's exceptions (a fault of the check, located by verify) and a class's are never kept. Once
the cache is full, later results are not kept (nothing is dropped): every submission of a batch asks
for the same results in the same order, so dropping the oldest to keep the newest would drop each
just before it is asked for again. They live in this process's memory only, are cleared when a
grading session starts and ends (grader.running.session.run_session), and are never written
anywhere: they depend on the secret seed. Student code never runs here, so nothing cached ever came
from a student. Functions and classes are keyed by identity: a function made anew for each
submission (a closure a check builds) would never hit, and its entries would keep later results out
of a full cache; the checks hand trusted code's own functions and classes (a reference, a catalogued
mistake). Thread-safe (a Dask worker may run an old session's last check while a new one starts).
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import struct
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, Hashable

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.sandbox.wire import Unencodable, tensor_bytes
from grader.errors import CoursegenError

MAX_BYTES = 64 * 2**20  # the first course's checks ask for about 50 MB per submission
MAX_ENTRY = 4 * 2**20
MAX_ENTRIES = 4096
ENTRY_OVERHEAD = 512  # bytes an entry costs besides its values (key, digest, dict slots)

_results: dict[tuple, Any] = {}
_sizes: dict[tuple, int] = {}
_total = 0
_lock = threading.Lock()
MISSING = object()


def inputs_key(args: tuple, kwargs: dict) -> bytes | None:
    """A digest of the inputs' contents, or None when one of them is not plain data."""
    digest = hashlib.blake2b(digest_size=20)
    try:
        _feed(digest, (tuple(args), dict(kwargs)))
    except _NotPlain:
        return None
    return digest.digest()


def call(fn: Any, key: bytes | None, variant: Hashable, compute: Callable[[], Any]) -> Any:
    """`compute()` (which calls `fn` on the inputs `key` digests), once per (fn, variant, key); what a
    catalogued mistake raised is kept too (see _keepable), and raised again."""
    trusted = _function(fn)
    if key is None or not _trusted_code(trusted):
        return compute()
    slot = (trusted, variant, key)
    with _lock:
        entry = _results.get(slot, MISSING)
    if entry is not MISSING:
        return _handed_out(entry)
    try:
        value = compute()  # outside the lock: trusted code may take long
    except Exception as error:
        kept = _keepable(error) if trusted is fn and inspect.isfunction(fn) else None
        if kept is not None:
            with _lock:
                if slot not in _results:
                    _store(slot, _Raised(kept), ENTRY_OVERHEAD)
        raise
    size = _size(value)
    if size is not None and size + ENTRY_OVERHEAD <= MAX_ENTRY:
        with _lock:
            if slot not in _results:
                _store(slot, _copy(value), size + ENTRY_OVERHEAD)
    return value


# What a function raises that its inputs alone decide: a mistake that raises where the check expects
# an error (odd d_model -> ValueError) is asked again for every student who does not raise there.
# Not RuntimeError or OSError: torch's allocator and the machine fail with those, for the moment only.
KEPT_EXCEPTIONS = (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, NotImplementedError)


def _keepable(error: Exception) -> Exception | None:
    """A detached copy of `error` to keep (no traceback, no chained exceptions: nothing of the frames
    it passed through, a student's value among them), or None: not one of KEPT_EXCEPTIONS, raised
    while handling a MemoryError or RecursionError, or not copyable."""
    chained: BaseException | None = error
    while chained is not None:
        if isinstance(chained, (MemoryError, RecursionError)):
            return None
        chained = chained.__cause__ or chained.__context__
    if type(error) not in KEPT_EXCEPTIONS:
        return None
    try:
        kept = copy.copy(error)
    except Exception:  # noqa: BLE001 - an exception that cannot be copied is not kept
        return None
    kept.__traceback__ = kept.__cause__ = kept.__context__ = None
    return kept


def known(fn: Any, key: bytes | None, variant: Hashable) -> Any:
    """A copy of what `fn` returned on the inputs `key` digests, if computed already (the exception it
    raised is raised); else MISSING."""
    fn = _function(fn)
    if key is None or not _trusted_code(fn):
        return MISSING
    slot = (fn, variant, key)
    with _lock:
        entry = _results.get(slot, MISSING)
    return entry if entry is MISSING else _handed_out(entry)


class _Raised:
    """What a catalogued mistake raised on the inputs (a detached copy), kept as a result is: asked
    again, a fresh copy of it is raised."""

    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


def _handed_out(entry: Any) -> Any:
    """A copy of a kept result, or a fresh copy of the exception kept, raised (each caller's own: no
    traceback or context of another caller's raise)."""
    if type(entry) is _Raised:
        raise copy.copy(entry.error)
    return _copy(entry)


# time-limiting wrapper (instructor_limit.bounded_namespace, made anew for each grading job) -> the
# reference it runs: the reference's results are kept for the reference itself, so they outlive the job.
# Looked up by identity, never by an attribute, which functools.wraps would copy onto any other
# function built on the wrapper.
_references: weakref.WeakKeyDictionary[Callable, Callable] = weakref.WeakKeyDictionary()


def key_by_reference(wrapper: Callable, reference: Callable) -> None:
    """Results of `wrapper` are kept (and found) as results of `reference`."""
    _references[wrapper] = reference


def _function(fn: Any) -> Any:
    """The function whose results `fn`'s are: a reference's own under its wrapper, else `fn`."""
    try:
        return _references.get(fn, fn)
    except TypeError:  # not weak-referenceable: not a wrapper
        return fn


def _trusted_code(fn: Any) -> bool:
    """A plain function or a class (a reference's, a catalogued mistake's): results are kept for
    these only, never for a callable object whose state could change what it returns."""
    return inspect.isfunction(fn) or inspect.isclass(fn)


def clear() -> None:
    global _total
    with _lock:
        _results.clear()
        _sizes.clear()
        _total = 0


def _store(slot: tuple, value: Any, size: int) -> None:
    """Keep `value` unless the cache is full (see the module's docstring: nothing is dropped)."""
    global _total
    if _total + size > MAX_BYTES or len(_results) >= MAX_ENTRIES:
        return
    _results[slot] = value
    _sizes[slot] = size
    _total += size


class _NotPlain(CoursegenError):
    pass


def _feed(digest: Any, value: Any) -> None:
    if type(value) is torch.Tensor:  # a subclass may mean something else with the same bytes
        try:
            dtype, shape, data = tensor_bytes(value)
        except Unencodable:
            raise _NotPlain from None
        digest.update(f"T{dtype}{shape}{value.requires_grad}:".encode())
        digest.update(data)
    elif type(value) is float:  # by its bits: repr() does not tell nan from -nan
        digest.update(b"float:" + struct.pack("<d", value))
    elif type(value) is complex:
        digest.update(b"complex:" + struct.pack("<dd", value.real, value.imag))
    elif value is None or type(value) in (bool, int, str):
        digest.update(f"{type(value).__name__}:{value!r};".encode())
    elif type(value) in (list, tuple):
        digest.update(f"{type(value).__name__}{len(value)}[".encode())
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    elif type(value) is dict:
        digest.update(f"dict{len(value)}{{".encode())
        for name in sorted(value, key=repr):
            _feed(digest, name)
            _feed(digest, value[name])
        digest.update(b"}")
    else:
        raise _NotPlain


def _size(value: Any) -> int | None:
    """Bytes held by a result made of tensors, numbers, strings, lists, tuples, dicts; else None."""
    if type(value) is torch.Tensor:
        plain = value.layout == torch.strided and not value.requires_grad and value.device.type == "cpu"
        return value.numel() * value.element_size() + 64 if plain else None
    if value is None or type(value) in (bool, int, float, complex, str):
        return sys.getsizeof(value)
    if type(value) in (list, tuple):
        sizes = [_size(item) for item in value]
        return None if None in sizes else sum(s for s in sizes if s is not None) + 64
    if type(value) is dict:
        sizes = [_size(item) for item in (*value.keys(), *value.values())]
        return None if None in sizes else sum(s for s in sizes if s is not None) + 64
    return None


def _copy(value: Any) -> Any:
    if type(value) is torch.Tensor:
        return value.detach().clone()
    if type(value) in (list, tuple):
        return type(value)(_copy(item) for item in value)
    if type(value) is dict:
        return {name: _copy(item) for name, item in value.items()}
    return value
