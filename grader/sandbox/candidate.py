"""A loaded submission (Candidate) and the objects living in its child (RemoteObject).

Calls are encoded with wire.py and sent through a ChildChannel; replies are decoded and checked
here, and every failure becomes a CandidateError whose message is one plain sentence for the
student (messages.py). After a fatal error the next call re-forks a fresh child and re-executes
the code, up to Limits.max_restarts times.
"""

from __future__ import annotations

import signal
import sys
import time
import types
from typing import Protocol

from . import messages, passing, wire
from .channel import ChildChannel, ChildHost, Fatal
from .errors import CandidateError, SandboxError, SubmissionLoadError
from .limits import Limits

SIGNAL_KINDS = {signal.SIGXCPU: "cpu", signal.SIGXFSZ: "file_size"}
RUNTIME_BROKEN = 70  # worker.RUNTIME_BROKEN (not imported: worker.py is the child's side)
_ISOLATION_ALLOWANCE = 0.5  # seconds between fork and the first student code (load_ahead's deadline)
# Time limits are charged on the child's own CPU time where its cgroup counts it (a neighbour's
# processes cannot use up a classmate's limit); wall time then only stops code that sleeps or
# blocks, at this many times the limit.
WALL_BACKSTOP = 3.0


def clean_text(text, limit: int = 300) -> str:
    """A child-supplied string made safe to show: printable, one line, at most `limit` chars."""
    if not isinstance(text, str):
        return ""
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CandidateHost(ChildHost, Protocol):
    """What a Candidate asks of the sandbox that loads it (grader.sandbox.sandbox.Sandbox)."""

    lang: str  # of the sentences a student reads
    refuse_readable: bool  # a child that can read a secret path is refused

    def record_isolation(self, isolation: list[str]) -> None:
        """The isolation a child just reported (Sandbox.isolation)."""
        ...


def start_loading(candidate: Candidate, *, ahead: bool) -> None:
    """Fork the candidate's child and send it the code (Sandbox.load, Sandbox.load_ahead). With
    `ahead`, return at once: the child isolates itself and executes the code while the caller does
    other work, and `candidate.wait_loaded()` collects the outcome; otherwise wait for it here
    (SubmissionLoadError, CandidateError). A function, not a method: a Candidate's attributes are
    the submission's names."""
    candidate._ahead = ahead
    candidate._begin()
    if not ahead:
        candidate.wait_loaded()


class Candidate:
    """A loaded submission. `candidate.dot(a, b)` calls into the child; see docs/architecture.md."""

    def __init__(self, sandbox: CandidateHost, code: str, filename: str, limits: Limits):
        self._sandbox = sandbox
        self._limits = limits
        self._code = code
        self._filename = filename
        self._child: ChildChannel | None = None
        self._names: dict[str, str] = {}
        self._generation = 0
        self._restarts = 0
        self._output = bytearray()
        self._spent = 0.0  # wall time of all calls and imports so far (Limits.total_seconds)
        self._load_failure: SubmissionLoadError | None = None
        self._begun = 0.0
        self._ahead = False  # begun by Sandbox.load_ahead: wait_loaded comes later
        self._awaiting = False  # begun, its "ready" and "loaded" not read yet
        self.isolation: list[str] = []

    # ---- public surface ---------------------------------------------------------------
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return _RemoteFunction(self, name)

    def __enter__(self) -> "Candidate":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Candidate {self._filename}>"

    def call(self, name: str, *args, **kwargs):
        """Call the top-level function or class `name` of the submission."""
        return self._request({"op": "call", "name": name}, args, kwargs, label=name)

    def call_keeping_inputs(self, name: str, *args, **kwargs) -> tuple:
        """`call`, and the arguments as the call left them in the child: (result, args, kwargs).
        A function whose contract says "the input is not changed" is checked with it."""
        reply = self._request({"op": "call", "name": name, "keep_inputs": True}, args, kwargs, label=name)
        if not (
            isinstance(reply, list)
            and len(reply) == 3
            and isinstance(reply[1], list)
            and len(reply[1]) == len(args)
            and isinstance(reply[2], dict)
        ):
            raise CandidateError(self._sentence("garbled", where=messages.where(name, self._sandbox.lang)), "garbled")
        return reply[0], tuple(reply[1]), dict(reply[2])

    def has(self, name: str) -> bool:
        return name in self._names

    def names(self) -> set[str]:
        return set(self._names)

    def kind(self, name: str) -> str | None:
        """'function', 'class' or 'other' for a name the submission defines at import, else None."""
        return self._names.get(name)

    @property
    def output(self) -> str:
        """What the submission printed (stdout and stderr together), capped at Limits.output_kb."""
        data = bytes(self._output)
        if self._child is not None:
            data += bytes(self._child.output)
        return data.decode("utf-8", "replace")

    def close(self) -> None:
        if self._child is not None:
            self._retire_child(wait=0.0)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- internals --------------------------------------------------------------------
    def _sentence(self, key: str, **fields) -> str:
        return messages.sentence(key, self._sandbox.lang, **fields)

    def _live_child(self) -> ChildChannel:
        """The current child: every caller runs after `_begin` or `_ensure_child` started one."""
        assert self._child is not None, "no child running"
        return self._child

    def _retire_child(self, wait: float) -> dict:
        child, self._child = self._live_child(), None
        status = child.end(wait=wait)
        self._output += child.output
        return status

    def _begin(self) -> None:
        """Fork a child and send it the code: it isolates itself and executes the code while
        the caller does other work (Sandbox.load_ahead); `wait_loaded` collects the outcome."""
        limits = self._limits
        self._child = child = ChildChannel(self._sandbox, limits, self._filename)
        self._generation += 1
        self._begun = time.monotonic()
        self._awaiting = True
        # loaded ahead, it runs at the idle CPU weight until the grader takes it up (wait_loaded):
        # its import cannot take CPU from the child being timed meanwhile
        child.containment.set_cpu_weight(idle=self._ahead)
        try:  # before "ready" no student code has run: a failure here is the sandbox's own
            child.send(
                wire.frame({"op": "exec", "code": self._code, "filename": self._filename}),
                self._begun + limits.import_seconds + 30,
            )
        except Fatal as fatal:
            status = self._retire_child(wait=1.0)
            raise SandboxError(
                f"the sandboxed child failed before running any student code ({fatal.kind}, {status})"
            ) from None

    def wait_loaded(self) -> None:
        """Wait until the child begun by `_begin` has executed the code; raise SubmissionLoadError
        (or SandboxError) as `Sandbox.load` does. Nothing to do once loaded."""
        if not self._awaiting:
            return
        self._awaiting = False
        limits = self._limits
        self._live_child().containment.set_cpu_weight(idle=False)  # its turn: the same weight as any child
        try:
            ready, _ = self._live_child().receive(self._begun + limits.import_seconds + 30, frames_first=True)
        except Fatal as fatal:
            status = self._retire_child(wait=1.0)
            raise SandboxError(
                f"the sandboxed child failed before running any student code ({fatal.kind}, {status})"
            ) from None
        info = ready.get("ready")
        if not isinstance(info, dict) or not isinstance(info.get("isolation"), list):
            self._retire_child(wait=0.0)
            raise SandboxError("the sandboxed child did not report ready")
        self.isolation = [clean_text(t, 200) for t in info["isolation"][:512]]
        containment = self._live_child().containment
        containment.confirm_joined()  # the keeper joined its cgroups before it forked the runner
        self.isolation += containment.tokens  # the grader's hold on the child
        self._sandbox.record_isolation(self.isolation)
        readable = [t.split(":", 1)[1] for t in self.isolation if t.startswith("READABLE:")]
        if readable and self._sandbox.refuse_readable:
            self._retire_child(wait=0.0)
            raise SandboxError(
                f"refusing to grade: the sandboxed child could read {', '.join(readable)} "
                "(references, checks or grading records must be hidden from student code; "
                "see docs/security.md)"
            )
        # The import's wall time counts from "ready" when that is read at once (Sandbox.load);
        # read later (load_ahead), from the fork plus an allowance for the isolation: the time
        # the grader spent elsewhere is no extra time for the student's code. A reply already
        # waiting in the socket is read however late the grader comes.
        clock = containment.cpu_seconds()
        cpu_budget = None
        if clock is not None:  # charged on its own CPU time (loaded ahead: all of it, from the fork)
            cpu_budget = (_ISOLATION_ALLOWANCE if self._ahead else clock) + limits.import_seconds
            deadline = time.monotonic() + limits.import_seconds * WALL_BACKSTOP
        elif self._ahead:
            deadline = max(self._begun + _ISOLATION_ALLOWANCE + limits.import_seconds, time.monotonic() + 0.05)
        else:
            deadline = time.monotonic() + limits.import_seconds
        try:
            reply, _ = self._live_child().receive(deadline, cpu_budget=cpu_budget)
        except Fatal as fatal:
            raise self._load_error(self._fatal_sentence(fatal, None), fatal.kind)
        if "loaded" in reply and isinstance(reply["loaded"], dict) and isinstance(reply["loaded"].get("names"), dict):
            names = reply["loaded"]["names"]
            self._names = {
                clean_text(k, 100): v if v in ("function", "class", "other") else "other"
                for k, v in list(names.items())[:10_000]
            }
            return
        sentence, kind = self._load_reply_sentence(reply)
        self._retire_child(wait=0.0)
        raise self._load_error(sentence, kind)

    def _load_error(self, sentence: str, kind: str) -> SubmissionLoadError:
        error = SubmissionLoadError(sentence, kind)
        self._load_failure = error
        return error

    def _load_reply_sentence(self, reply: dict) -> tuple[str, str]:
        if isinstance(reply.get("load_failed"), dict):
            info = reply["load_failed"]
            line = info.get("line")
            fields = {
                "type": clean_text(info.get("type"), 60) or "Exception",
                "detail": clean_text(info.get("detail"), 200),
            }
            if type(line) is int:
                return self._sentence("import_failed", line=line, **fields), "raised"
            return self._sentence("import_failed_noline", **fields), "raised"
        if "exited" in reply:
            code = reply["exited"] if type(reply["exited"]) is int else 1
            return self._sentence("exited", code=code, where=messages.where(None, self._sandbox.lang)), "exited"
        if "memory" in reply:
            return self._sentence(
                "memory", mb=self._limits.memory_mb, where=messages.where(None, self._sandbox.lang)
            ), "memory"
        if "file_size" in reply:
            return self._sentence(
                "file_size", mb=self._limits.file_size_mb, where=messages.where(None, self._sandbox.lang)
            ), "file_size"
        return self._sentence("garbled", where=messages.where(None, self._sandbox.lang)), "garbled"

    def _fatal_sentence(self, fatal: Fatal, label: str | None) -> str:
        """Turn a fatal event into the student's sentence; retires the child."""
        limits = self._limits
        where = messages.where(label, self._sandbox.lang)
        if fatal.kind == "died":
            status = self._retire_child(wait=1.0)
            sig, code = status.get("signal"), status.get("exit")
            if status.get("forced"):  # it closed the socket but kept running
                fatal.kind = "garbled"
                return self._sentence("broken", where=where)
            if sig == signal.SIGKILL and status.get("oom"):  # the child's cgroup memory limit
                fatal.kind = "memory"
                return self._sentence("memory", mb=limits.memory_mb, where=where)
            if sig == signal.SIGKILL:  # not ours: the kernel's RLIMIT_CPU kill
                fatal.kind = "cpu"
            elif sig in SIGNAL_KINDS:
                fatal.kind = SIGNAL_KINDS[sig]
            elif sig is not None:
                fatal.kind = "crashed"
                return self._sentence("crashed", signal=sig, where=where)
            elif code == RUNTIME_BROKEN:
                fatal.kind = "garbled"
                return self._sentence("broken", where=where)
            else:
                fatal.kind = "exited"
                return self._sentence("exited", code=code if code is not None else "?", where=where)
        elif self._child is not None:
            self._retire_child(wait=0.0)
        if fatal.kind == "timeout":
            seconds = limits.import_seconds if label is None else limits.call_seconds
            return self._sentence("timeout", seconds=seconds, where=where)
        if fatal.kind == "cpu":
            return self._sentence("cpu", seconds=limits.cpu_seconds, where=where)
        if fatal.kind == "file_size":
            return self._sentence("file_size", mb=limits.file_size_mb, where=where)
        if fatal.kind == "output":
            return self._sentence("output", kb=limits.output_kb, where=where)
        return self._sentence("garbled", where=where)

    def _ensure_child(self, label: str) -> None:
        if self._child is not None:
            return
        if self._load_failure is not None or self._restarts >= self._limits.max_restarts:
            raise CandidateError(self._sentence("gone", name=label), "gone", label)
        self._restarts += 1
        try:
            start_loading(self, ahead=False)
        except SubmissionLoadError as error:
            raise CandidateError(error.message, error.kind, label) from None

    def _request(self, message: dict, args, kwargs, *, label: str, generation: int | None = None):
        if generation is not None and (generation != self._generation or self._child is None):
            raise CandidateError(self._sentence("lost_object", name=label.split(".")[0]), "gone", label)
        remaining = self._limits.total_seconds - self._spent
        if remaining <= 0:
            raise CandidateError(
                self._sentence("total_time", seconds=self._limits.total_seconds, name=label), "timeout", label
            )
        started = time.monotonic()
        try:
            self._ensure_child(label)
            encoder = _parent_encoder()
            try:
                full = dict(
                    message,
                    args=encoder.encode(list(args)),
                    kwargs=encoder.encode({str(k): v for k, v in kwargs.items()}),
                )
            except wire.Unencodable as exc:
                raise UnsupportedValue.located(exc, label, args, kwargs) from None
            data = wire.frame(full, encoder.blob())
            limit = min(self._limits.call_seconds, remaining)
            child = self._live_child()
            clock = child.containment.cpu_seconds()
            cpu_budget = None if clock is None else clock + limit
            deadline = time.monotonic() + (limit if clock is None else limit * WALL_BACKSTOP)
            try:
                child.send(data, deadline)
                reply, blob = child.receive(deadline, cpu_budget=cpu_budget)
                return self._interpret(reply, blob, label)
            except Fatal as fatal:
                if fatal.kind == "timeout" and remaining < self._limits.call_seconds:
                    self._fatal_sentence(fatal, label)  # retires the child
                    raise CandidateError(
                        self._sentence("total_time", seconds=self._limits.total_seconds, name=label), "timeout", label
                    ) from None
                raise CandidateError(self._fatal_sentence(fatal, label), fatal.kind, label) from None
        finally:
            self._spent += time.monotonic() - started

    def _interpret(self, reply: dict, blob: bytes, label: str):
        if len(reply) != 1:
            raise Fatal("garbled")
        ((key, value),) = reply.items()
        limits = self._limits
        if key == "ok":
            generation = self._generation
            try:
                return wire.decode_value(
                    value,
                    blob,
                    max_elements=limits.result_mb * 2**20,
                    make_ref=lambda ref, type_name, name=None: RemoteObject(self, ref, type_name, generation, name),
                )
            except wire.ProtocolError:
                raise Fatal("garbled") from None
        if key == "raised" and isinstance(value, dict):
            type_name = clean_text(value.get("type"), 60) or "Exception"
            detail = clean_text(value.get("detail"), 200)
            if detail:
                text = self._sentence("raised", name=label, type=type_name, detail=detail)
            else:
                text = self._sentence("raised_plain", name=label, type=type_name)
            raise CandidateError(text, "raised", label)
        if key == "returned":
            raise CandidateError(
                self._sentence("returned", name=label, type=clean_text(value, 60) or "?"), "returned", label
            )
        if key == "missing":
            raise CandidateError(self._sentence("missing", name=label), "missing", label)
        if key == "exited":
            code = value if type(value) is int else 1
            raise CandidateError(
                self._sentence("exited", code=code, where=messages.where(label, self._sandbox.lang)), "exited", label
            )
        if key == "file_size":
            raise CandidateError(
                self._sentence("file_size", mb=limits.file_size_mb, where=messages.where(label, self._sandbox.lang)),
                "file_size",
                label,
            )
        if key == "memory":
            raise CandidateError(
                self._sentence("memory", mb=limits.memory_mb, where=messages.where(label, self._sandbox.lang)),
                "memory",
                label,
            )
        raise Fatal("garbled")


def _encode_remote_object(value):
    if isinstance(value, RemoteObject):
        return {"ref": [value._ref, value._type_name]}
    raise wire.Unencodable(type(value).__name__)


def _parent_encoder() -> wire.Encoder:
    """The grader's encoder: the wire's values, objects living in the child (RemoteObject), numpy
    scalars as themselves, and functions the child can rebuild (passing.py)."""
    encoder: wire.Encoder

    def on_other(value):
        if isinstance(value, RemoteObject):
            return {"ref": [value._ref, value._type_name]}
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(value, numpy.generic):
            return encoder.scalar(value)
        node = passing.encode_callable(value, lambda v: encoder.encode(v, encoder.depth + 1))
        if node is not None:
            return node
        raise wire.Unencodable(type(value).__name__)

    encoder = wire.Encoder(on_other=on_other)
    return encoder


class UnsupportedValue(wire.Unencodable):
    """A check passed student code a value that cannot cross to it: the message names the
    argument and the check's line, lists what can cross and says what to do instead."""

    message = ""

    def __str__(self) -> str:
        return self.message or self.sentence()

    @classmethod
    def located(cls, exc: wire.Unencodable, label: str, args, kwargs) -> "UnsupportedValue":
        what = f"a value passed to {label}"
        for index, value in enumerate(args):
            if _fails(value):
                what = f"argument {index + 1} of {label}"
                break
        else:
            for key, value in kwargs.items():
                if _fails(value):
                    what = f"argument {key}= of {label}"
                    break
        where = _check_frame()
        error = cls(exc.type_name, exc.reason, exc.instead)
        error.message = exc.sentence(f"{what}{f' ({where})' if where else ''}")
        return error


def _fails(value) -> bool:
    try:
        _parent_encoder().encode(value)
    except wire.Unencodable:
        return True
    return False


def _check_frame() -> str:
    """'file:line' of the innermost caller outside the engine (the check that made the call)."""
    from pathlib import Path

    engine = Path(__file__).resolve().parents[1]
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_code.co_filename).resolve()
        inside = path.is_relative_to(engine) and not path.is_relative_to(engine / "checks")
        if not inside and path.suffix == ".py" and "_pytest" not in path.parts and "pluggy" not in path.parts:
            return f"{path.name}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


class _RemoteFunction:
    def __init__(self, candidate: Candidate, name: str):
        self._candidate = candidate
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._candidate.call(self._name, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<remote {self._name}>"


class RemoteObject:
    """An object living in the child (e.g. the student's LinearModel). Calls go through the candidate."""

    def __init__(self, candidate: Candidate, ref: int, type_name: str, generation: int, name: str | None = None):
        self._candidate = candidate
        self._ref = ref
        self._type_name = clean_text(type_name, 60) or "object"
        self._generation = generation
        self._name = clean_text(name, 60) if name is not None else None  # a function's __name__

    def __repr__(self) -> str:
        if self._name is not None:
            return f"<remote {self._type_name} {self._name}>"
        return f"<remote {self._type_name}>"

    def _do(self, message: dict, args=(), kwargs=None, *, label: str):
        return self._candidate._request(
            dict(message, ref=self._ref), args, kwargs or {}, label=label, generation=self._generation
        )

    def __call__(self, *args, **kwargs):
        """The object's forward (calls the object itself, as nn.Module does); for a function the
        student's code returned, a call of that function (in the child)."""
        label = f"{self._name}" if self._name is not None else f"{self._type_name}.forward"
        return self._do({"op": "method", "name": "__call__"}, args, kwargs, label=label)

    def call(self, method: str, *args, **kwargs):
        return self._do({"op": "method", "name": method}, args, kwargs, label=f"{self._type_name}.{method}")

    def get(self, path: str):
        """The value at attribute path `path` (e.g. "linear.weight"), as a plain tensor or value."""
        return self._do({"op": "get", "path": path}, label=f"{self._type_name}.{path}")

    def set(self, path: str, value) -> None:
        """Copy `value` into the existing tensor at `path` (under no_grad)."""
        self._do({"op": "set", "path": path}, (value,), label=f"{self._type_name}.{path}")

    def parameters(self) -> list[tuple[str, tuple[int, ...]]]:
        """[(name, shape)] from named_parameters() (a shared Parameter is listed once)."""
        result = self._do({"op": "parameters"}, label=f"{self._type_name}.named_parameters")
        if not isinstance(result, list):
            raise CandidateError(
                self._candidate._sentence(
                    "returned", name=f"{self._type_name}.named_parameters", type=type(result).__name__
                ),
                "returned",
            )
        cleaned = []
        for item in result:
            if (
                isinstance(item, tuple)
                and len(item) == 2
                and isinstance(item[0], str)
                and isinstance(item[1], tuple)
                and all(type(s) is int for s in item[1])
            ):
                cleaned.append((clean_text(item[0], 200), item[1]))
            else:
                raise CandidateError(
                    self._candidate._sentence(
                        "garbled",
                        where=messages.where(f"{self._type_name}.named_parameters", self._candidate._sandbox.lang),
                    ),
                    "garbled",
                )
        return cleaned
