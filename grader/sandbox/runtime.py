"""The sandboxed child's side: execute the submission as a module, then answer calls.

Runs only in the isolated runner process. Everything here is reachable by (and may be
tampered with by) the student's code, so the grader trusts none of it: it only ever reads
data frames from this process and validates them (see proxy.py).

Replies, one per request:
    {"ready": {"isolation": [...]}}                         once, before any student code runs
    {"loaded": {"names": {name: "function"|"class"|"other"}}}
    {"load_failed": {"type", "line", "detail"}} | {"exited": code} | {"memory": true}
    {"ok": value} | {"raised": {"type", "detail"}} | {"returned": type_name} | {"missing": name}
    | {"exited": code} | {"memory": true} | {"file_size": true}
"""

from __future__ import annotations

import errno
import os
import random
import socket
import sys
import traceback
import types
from typing import TYPE_CHECKING, Any

from . import passing, wire

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # the real torch when the worker preloaded it (the course requires it)

# Student code may replace builtins (builtins.isinstance = ...); this module keeps the originals.
from builtins import (
    any,
    bool,
    bytes,
    callable,
    dict,
    float,
    getattr,
    hasattr,
    int,
    isinstance,  # noqa: E402,A004
    list,
    repr,
    str,
    tuple,
    type,
    vars,
)

MODULE_PREFIXES = (
    "grader",
    "solutions",
    "exercises",
    "coursegen",
    "coursegen_cli",
    "cli",
    "__editable__",
)
COURSE_PACKAGE_PREFIX = passing.COURSE_PACKAGE_PREFIX  # a course's code loaded by path (grader.course)


def serve(sock: socket.socket, tokens: list[str], spec: dict) -> None:
    _forget_project(spec)
    state = _State(sock)
    state.send({"ready": {"isolation": tokens}})
    # The child must not hold the paths it was told to hide (the gradebook, the batch folder,
    # the course): empty every list naming them, wherever else they are referenced.
    tokens.clear()
    for key in ("hide", "probes"):
        value = spec.pop(key, None)
        if isinstance(value, list):
            value.clear()
    reader = wire.FrameReader(max_json=1 << 30, max_blob=1 << 40)
    while True:
        data = sock.recv(1 << 20)
        if not data:
            return
        for body, blob in reader.feed(data):
            state.handle(wire.parse_json(body), blob)


def _forget_project(spec: dict) -> None:
    """Make the project's own packages unimportable: drop them from sys.modules, drop the
    editable-install finders and every sys.path entry inside a hidden folder."""
    hidden = [os.path.realpath(p) for p in spec["hide"]]
    dotted = tuple(prefix + "." for prefix in MODULE_PREFIXES)
    for name in [
        n
        for n in sys.modules
        if n in MODULE_PREFIXES or n.startswith(dotted) or n.startswith(("__editable__", COURSE_PACKAGE_PREFIX))
    ]:
        del sys.modules[name]
    sys.meta_path[:] = [
        f
        for f in sys.meta_path
        if "editable" not in type(f).__module__.lower() and "editable" not in type(f).__name__.lower()
    ]
    sys.path_hooks[:] = [h for h in sys.path_hooks if "editable" not in repr(h).lower()]

    exposed = [os.path.realpath(p) for p in spec["expose"]]

    def under(path: str, folders: list[str]) -> bool:
        return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)

    def keep(entry: str) -> bool:
        if not entry or entry.startswith("__editable__"):
            return False
        real = os.path.realpath(entry)
        return under(real, exposed) or not under(real, hidden)  # the stdlib may live under a hidden home

    sys.path[:] = [p for p in sys.path if keep(p)]
    sys.path_importer_cache.clear()


def _plain_tensor(value: torch.Tensor) -> torch.Tensor:
    with torch._C.DisableTorchFunction():
        return torch.Tensor.as_subclass(value, torch.Tensor).detach()


def _plain_array(value):
    numpy = sys.modules["numpy"]  # imported: an array is in hand
    return numpy.ndarray.view(value, numpy.ndarray)


def _is_memory_error(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc) if isinstance(exc, RuntimeError) else ""
    return "can't allocate memory" in text or "DefaultCPUAllocator" in text


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except BaseException:  # a hostile __str__
        return ""


class _State:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.module: types.ModuleType | None = None
        self.objects: dict[int, Any] = {}  # the submission's objects: any attribute may be asked of them
        self.next_id = 1

    # ---- sending ----------------------------------------------------------------------
    def send(self, message: dict, blob: bytes = b"") -> None:
        _flush_output()
        self.sock.sendall(wire.frame(message, blob))

    def send_value(self, value, make_refs: bool) -> None:
        def on_other(obj):
            if isinstance(obj, torch.nn.Module) or make_refs:
                return {"ref": [self._register(obj), type(obj).__name__]}
            if callable(obj) and not isinstance(obj, type):  # a function the student's code returned
                name = getattr(obj, "__name__", None)
                return {"ref": [self._register(obj), type(obj).__name__, name if type(name) is str else "callable"]}
            if isinstance(obj, (int, float)) and not isinstance(obj, bool):  # numpy / enum numbers
                return int(obj) if isinstance(obj, int) else float(obj)
            if hasattr(obj, "item") and type(obj).__module__ == "numpy" and getattr(obj, "ndim", 1) == 0:
                item = obj.item()
                if type(item) in (int, float, bool):
                    return item
            raise wire.Unencodable(type(obj).__name__)

        encoder = wire.Encoder(on_other=on_other, plain_tensor=_plain_tensor, plain_array=_plain_array)
        try:
            node = encoder.encode(value)
        except wire.Unencodable as exc:
            self.send({"returned": exc.type_name[:200]})
            return
        self.send({"ok": node}, encoder.blob())

    def _object(self, ref: int, *_names: str):
        return self.objects.get(ref)

    def _register(self, obj) -> int:
        ref = self.next_id
        self.next_id += 1
        self.objects[ref] = obj
        return ref

    # ---- requests ---------------------------------------------------------------------
    def handle(self, message: dict, blob: bytes) -> None:
        op = message.get("op")
        if op == "exec":
            self.execute(message["code"], message["filename"])
            return
        try:
            args = wire.decode_value(
                message.get("args", []),
                blob,
                max_elements=1 << 40,
                make_ref=self._object,
                make_callable=passing.rebuild,
            )
            kwargs = wire.decode_value(
                message.get("kwargs", {"dict": []}),
                blob,
                max_elements=1 << 40,
                make_ref=self._object,
                make_callable=passing.rebuild,
            )
            kwargs = {str(k): v for k, v in kwargs.items()}
            self.run(op, message, args, kwargs)
        except BaseException as exc:  # anything the student's code raised, exit included
            self.report(exc)

    def run(self, op: str | None, message: dict, args: list, kwargs: dict) -> None:
        if op == "call":
            name = message["name"]
            if self.module is None or name not in vars(self.module):
                self.send({"missing": name})
                return
            target = vars(self.module)[name]
            result = target(*args, **kwargs)
            if message.get("keep_inputs") is True:  # the arguments as the call left them (was one changed?)
                self.send_value([result, args, kwargs], make_refs=False)
                return
            self.send_value(result, make_refs=isinstance(target, type))
        elif op == "method":
            obj = self.objects[message["ref"]]
            method = obj if message["name"] == "__call__" else getattr(obj, message["name"])
            self.send_value(method(*args, **kwargs), make_refs=False)
        elif op == "get":
            self.send_value(_resolve(self.objects[message["ref"]], message["path"]), make_refs=False)
        elif op == "set":
            target = _resolve(self.objects[message["ref"]], message["path"])
            if not isinstance(target, torch.Tensor):
                raise TypeError(f"{message['path']} is a {type(target).__name__}, not a tensor")
            with torch.no_grad():
                target.copy_(args[0])
            self.send({"ok": None})
        elif op == "parameters":
            obj = self.objects[message["ref"]]
            params = [(str(name), tuple(int(s) for s in p.shape)) for name, p in obj.named_parameters()]
            self.send_value(params, make_refs=False)
        elif op == "release":
            self.objects.pop(message["ref"], None)
            self.send({"ok": None})
        else:
            self.send({"returned": "unknown request"})

    def report(self, exc: BaseException) -> None:
        if isinstance(exc, SystemExit):
            code = exc.code
            self.send({"exited": code if type(code) is int else (0 if code is None else 1)})
        elif _is_memory_error(exc):
            self.send({"memory": True})
        elif isinstance(exc, OSError) and exc.errno == errno.EFBIG:
            self.send({"file_size": True})
        else:
            self.send({"raised": {"type": type(exc).__name__[:200], "detail": _safe_str(exc)}})

    def execute(self, code: str, filename: str) -> None:
        name = os.path.splitext(os.path.basename(filename))[0] or "submission"
        module = types.ModuleType(name)
        module.__file__ = os.path.join(os.getcwd(), os.path.basename(filename))
        sys.modules[name] = module
        # A fixed (public) seed: a student's randomly initialised weights, and so the feedback
        # that shows them, are the same on every run. The checks' inputs come from the parent.
        random.seed(0)
        if "torch" in sys.modules:
            torch.manual_seed(0)
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed(0)
        try:
            compiled = compile(code, filename, "exec", dont_inherit=True)
            exec(compiled, vars(module))
        except BaseException as exc:
            if isinstance(exc, SystemExit) or _is_memory_error(exc) or getattr(exc, "errno", None) == errno.EFBIG:
                self.report(exc)
            else:
                self.send(
                    {
                        "load_failed": {
                            "type": type(exc).__name__[:200],
                            "line": _line_of(exc, filename),
                            "detail": _safe_str(exc) if not isinstance(exc, SyntaxError) else str(exc.msg)[:2000],
                        }
                    }
                )
            return
        self.module = module
        names = {}
        for key, value in list(vars(module).items()):
            if isinstance(key, str) and not key.startswith("__"):
                names[key] = "class" if isinstance(value, type) else "function" if callable(value) else "other"
        self.send({"loaded": {"names": names}})


def _resolve(obj, path: str):
    for part in str(path).split("."):
        obj = getattr(obj, part)
    return obj


def _line_of(exc: BaseException, filename: str) -> int | None:
    if isinstance(exc, SyntaxError):
        return exc.lineno
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    return line


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
