"""The grader's side of the sandbox: Sandbox (owns the warm worker), Candidate (one loaded
submission) and RemoteObject (an object living in the child, e.g. a TiedLM instance).

Nothing that comes from the child is trusted: frames are size-capped, values decoded by
wire.decode_value (tensors rebuilt from raw bytes, dtype allowlist), strings cleaned and
truncated; every limit is enforced from here (wall time, output size) or by the kernel.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import messages, wire
from .errors import CandidateError, SandboxError, SubmissionLoadError
from .limits import Limits

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKER_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from grader.sandbox.worker import main; main()"
SIGNAL_KINDS = {signal.SIGXCPU: "cpu", signal.SIGXFSZ: "file_size"}
MAX_JSON = 64 * 2**20
RUNTIME_BROKEN = 70       # worker.RUNTIME_BROKEN (not imported: worker.py is the child's side)


def clean_text(text, limit: int = 300) -> str:
    """A child-supplied string made safe to show: printable, one line, at most `limit` chars."""
    if not isinstance(text, str):
        return ""
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Sandbox:
    """Runs submissions in isolated children of one warm worker. `hide` adds paths the child
    must not see (the gradebook, the output folder); the project root, the grader's home and
    working folder and /autograder are always hidden where a mount namespace is available.
    $COURSEGEN_SANDBOX_LIMITS overrides fields of `limits` (see Limits.with_environment)."""

    def __init__(self, limits: Limits | None = None, lang: str = "en", hide: tuple[str, ...] = (),
                 namespaces: bool = True):
        self.limits = (limits or Limits()).with_environment()
        self.lang = lang if lang in ("en", "zh") else "en"
        self.extra_hidden = [str(p) for p in hide]
        self.namespaces = namespaces        # False: the fallback of machines without them (tests, debugging)
        self._worker: _Worker | None = None
        self._isolation: list[str] | None = None

    # ---- lifecycle --------------------------------------------------------------------
    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def load(self, code: str, filename: str = "submission.py", limits: Limits | None = None) -> "Candidate":
        """Fork an isolated child and execute `code` in it as a module (named after `filename`).
        `limits` overrides the sandbox's limits for this submission."""
        candidate = Candidate(self, code, filename, limits or self.limits)
        candidate._start(load_error=True)
        return candidate

    @property
    def isolation(self) -> list[str]:
        """What isolation is in force (tokens such as 'pid-namespace', 'unprivileged-user:nobody',
        'hidden:/path'); 'READABLE:<path>' entries warn that a secret path was readable."""
        if self._isolation is None:
            with self.load(""):
                pass
        return list(self._isolation or [])

    # ---- internals --------------------------------------------------------------------
    def _spawn_spec(self, workdir: str, limits: Limits) -> dict:
        try:
            cwd = os.getcwd()
        except OSError:       # the working folder was deleted
            cwd = ""
        hide = [str(PROJECT_ROOT), cwd, os.path.expanduser("~"), "/autograder", *self.extra_hidden]
        probes = [str(PROJECT_ROOT / "solutions"), str(PROJECT_ROOT / "grader"), *self.extra_hidden]
        return {"limits": limits.as_dict(), "workdir": workdir, "hide": hide,
                "expose": _python_paths(), "probes": probes, "namespaces": self.namespaces}

    def _spawn(self, limits: Limits) -> tuple[int, socket.socket, int, str]:
        workdir = tempfile.mkdtemp(prefix="coursegen-sandbox-")
        if os.geteuid() == 0:
            from .isolation import nobody_ids

            os.chown(workdir, *nobody_ids())
        spec = self._spawn_spec(workdir, limits)
        for attempt in range(2):
            if self._worker is None or not self._worker.alive():
                self._worker = _Worker()
            try:
                pid, sock, out_fd = self._worker.spawn(spec)
                return pid, sock, out_fd, workdir
            except (OSError, SandboxError):
                self._worker.close()
                self._worker = None
                if attempt:
                    shutil.rmtree(workdir, ignore_errors=True)
                    raise SandboxError("the sandbox worker failed to start a child") from None
        raise AssertionError("unreachable")

    def _status(self, pid: int, wait: float) -> dict:
        if self._worker is None:
            return {"exit": None, "signal": None}
        try:
            return self._worker.status(pid, wait)
        except (OSError, SandboxError):
            return {"exit": None, "signal": None}


def _python_paths() -> list[str]:
    import site

    paths = {sys.base_prefix, sys.prefix, *site.getsitepackages()}
    try:
        paths.add(site.getusersitepackages())
    except Exception:
        pass
    return sorted(p for p in paths if p and os.path.isdir(p))


class _Worker:
    """The spawned warm worker and its control socket."""

    def __init__(self):
        ours, theirs = socket.socketpair()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", WORKER_BOOT, str(PROJECT_ROOT), str(theirs.fileno())],
                pass_fds=[theirs.fileno()], env=env, cwd="/", stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=None, start_new_session=True)
        finally:
            theirs.close()
        self.sock = ours
        self.reader = wire.FrameReader(max_json=1 << 20, max_blob=0)
        ready = self._receive(timeout=120)
        if "ready" not in ready:
            self.close()
            raise SandboxError("the sandbox worker did not start")

    def alive(self) -> bool:
        return self.process.poll() is None

    def _send(self, message: dict) -> None:
        self.sock.sendall(wire.frame(message))

    def _receive(self, timeout: float, with_fds: bool = False) -> dict:
        deadline = time.monotonic() + timeout
        fds: list[int] = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
                raise SandboxError("the sandbox worker stopped answering")
            data, got, _flags, _addr = socket.recv_fds(self.sock, 1 << 16, 4)
            fds += got
            if not data:
                raise SandboxError("the sandbox worker exited")
            frames = self.reader.feed(data)
            if frames:
                message = json.loads(frames[0][0])
                if with_fds:
                    message["_fds"] = fds
                else:
                    for fd in fds:
                        os.close(fd)
                return message

    def spawn(self, spec: dict) -> tuple[int, socket.socket, int]:
        self._send({"op": "spawn", "spec": spec})
        reply = self._receive(timeout=30, with_fds=True)
        fds = reply.get("_fds", [])
        if "spawned" not in reply or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            raise SandboxError("the sandbox worker could not fork")
        return reply["spawned"], socket.socket(fileno=fds[0]), fds[1]

    def status(self, pid: int, wait: float) -> dict:
        self._send({"op": "status", "pid": pid, "wait": wait})
        return self._receive(timeout=wait + 10)["status"]

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


class _Fatal(Exception):
    """The child is gone or must be killed; `kind` and `fields` make the student's sentence."""

    def __init__(self, kind: str, **fields):
        super().__init__(kind)
        self.kind = kind
        self.fields = fields


class _Child:
    """One isolated child: its keeper pid, socket and output pipe; enforces wall time and output."""

    def __init__(self, sandbox: Sandbox, limits: Limits):
        self.sandbox = sandbox
        self.limits = limits
        self.pid, self.sock, self.out_fd, self.workdir = sandbox._spawn(limits)
        self.sock.setblocking(False)
        os.set_blocking(self.out_fd, False)
        self.reader = wire.FrameReader(max_json=MAX_JSON, max_blob=self.limits.result_mb * 2**20)
        self.pending: list[tuple[bytes, bytes]] = []
        self.output = bytearray()
        self.output_total = 0
        self.alive = True
        self.killed = False

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Fatal("timeout")
            readable, writable, _ = select.select([self.out_fd], [self.sock], [], remaining)
            if readable:
                self._drain_output()
            if writable:
                try:
                    sent = self.sock.send(view)
                except BlockingIOError:
                    continue
                except OSError:
                    raise _Fatal("died") from None
                view = view[sent:]

    def receive(self, deadline: float) -> tuple[dict, bytes]:
        """The next frame from the child, within the deadline, draining its output meanwhile."""
        while not self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Fatal("timeout")
            readable, _, _ = select.select([self.sock, self.out_fd], [], [], remaining)
            if self.out_fd in readable:
                self._drain_output()
            if self.sock in readable:
                try:
                    data = self.sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    raise _Fatal("died")
                try:
                    self.pending += self.reader.feed(data)
                except wire.ProtocolError:
                    raise _Fatal("garbled") from None
        body, blob = self.pending.pop(0)
        try:
            return wire.parse_json(body), blob
        except wire.ProtocolError:
            raise _Fatal("garbled") from None

    def _drain_output(self) -> None:
        cap = self.limits.output_kb * 1024
        while True:
            try:
                chunk = os.read(self.out_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                return
            if not chunk:
                return
            self.output_total += len(chunk)
            if len(self.output) < cap:
                self.output += chunk[: cap - len(self.output)]
            if self.output_total > cap:
                raise _Fatal("output", kb=self.limits.output_kb)

    def kill(self) -> None:
        if self.alive and not self.killed:
            self.killed = True
            for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                try:
                    target()
                except (ProcessLookupError, PermissionError):
                    pass

    def end(self, wait: float = 0.0) -> dict:
        """Close everything; returns how the child ended ({"exit"|"signal"})."""
        if not self.alive:
            return {"exit": None, "signal": None}
        try:
            self._drain_output()  # what is left in the pipe (a traceback before a crash)
        except _Fatal:
            pass
        if wait <= 0:            # a normal close: kill, and let the worker reap it later
            self.kill()
            status = {"exit": None, "signal": signal.SIGKILL}
        else:
            status = self.sandbox._status(self.pid, wait)
        self.alive = False
        for close in (self.sock.close, lambda: os.close(self.out_fd)):
            try:
                close()
            except OSError:
                pass
        shutil.rmtree(self.workdir, ignore_errors=True)
        return status


class Candidate:
    """A loaded submission. `candidate.apply_rope(x)` calls into the child; see docs/architecture.md."""

    def __init__(self, sandbox: Sandbox, code: str, filename: str, limits: Limits):
        self._sandbox = sandbox
        self._limits = limits
        self._code = code
        self._filename = filename
        self._child: _Child | None = None
        self._names: dict[str, str] = {}
        self._generation = 0
        self._restarts = 0
        self._output = bytearray()
        self._spent = 0.0                 # wall time of all calls and imports so far (Limits.total_seconds)
        self._load_failure: SubmissionLoadError | None = None
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
        return self._request({"op": "call", "name": name}, args, kwargs, label=name, top_level=True)

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

    def _retire_child(self, wait: float) -> dict:
        child, self._child = self._child, None
        status = child.end(wait=wait)
        self._output += child.output
        return status

    def _start(self, load_error: bool) -> None:
        """Fork a child, execute the code; raise SubmissionLoadError (or CandidateError) on failure."""
        limits = self._limits
        self._child = _Child(self._sandbox, limits)
        self._generation += 1
        deadline = time.monotonic() + limits.import_seconds
        try:       # before "ready" no student code has run: a failure here is the sandbox's own
            self._child.send(wire.frame({"op": "exec", "code": self._code, "filename": self._filename}), deadline + 30)
            ready, _ = self._child.receive(deadline + 30)
        except _Fatal as fatal:
            status = self._retire_child(wait=1.0)
            raise SandboxError(f"the sandboxed child failed before running any student code ({fatal.kind}, "
                               f"{status})") from None
        info = ready.get("ready")
        if not isinstance(info, dict) or not isinstance(info.get("isolation"), list):
            self._retire_child(wait=0.0)
            raise SandboxError("the sandboxed child did not report ready")
        self.isolation = [clean_text(t, 200) for t in info["isolation"][:64]]
        self._sandbox._isolation = self.isolation
        deadline = time.monotonic() + limits.import_seconds
        try:
            reply, _ = self._child.receive(deadline)
        except _Fatal as fatal:
            raise self._load_error(self._fatal_sentence(fatal, None), fatal.kind)
        if "loaded" in reply and isinstance(reply["loaded"], dict) and isinstance(reply["loaded"].get("names"), dict):
            names = reply["loaded"]["names"]
            self._names = {clean_text(k, 100): v if v in ("function", "class", "other") else "other"
                           for k, v in list(names.items())[:10_000]}
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
            fields = {"type": clean_text(info.get("type"), 60) or "Exception",
                      "detail": clean_text(info.get("detail"), 200)}
            if type(line) is int:
                return self._sentence("import_failed", line=line, **fields), "raised"
            return self._sentence("import_failed_noline", **fields), "raised"
        if "exited" in reply:
            code = reply["exited"] if type(reply["exited"]) is int else 1
            return self._sentence("exited", code=code, where=messages.where(None, self._sandbox.lang)), "exited"
        if "memory" in reply:
            return self._sentence("memory", mb=self._limits.memory_mb,
                                  where=messages.where(None, self._sandbox.lang)), "memory"
        if "file_size" in reply:
            return self._sentence("file_size", mb=self._limits.file_size_mb,
                                  where=messages.where(None, self._sandbox.lang)), "file_size"
        return self._sentence("garbled", where=messages.where(None, self._sandbox.lang)), "garbled"

    def _fatal_sentence(self, fatal: _Fatal, label: str | None) -> str:
        """Turn a fatal event into the student's sentence; retires the child."""
        limits = self._limits
        where = messages.where(label, self._sandbox.lang)
        if fatal.kind == "died":
            status = self._retire_child(wait=1.0)
            sig, code = status.get("signal"), status.get("exit")
            if sig == signal.SIGKILL:          # not ours: the kernel's RLIMIT_CPU kill
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
            self._start(load_error=False)
        except SubmissionLoadError as error:
            raise CandidateError(error.message, error.kind, label) from None

    def _request(self, message: dict, args, kwargs, *, label: str, top_level: bool = False,
                 generation: int | None = None):
        if generation is not None and (generation != self._generation or self._child is None):
            raise CandidateError(self._sentence("lost_object", name=label.split(".")[0]), "gone", label)
        remaining = self._limits.total_seconds - self._spent
        if remaining <= 0:
            raise CandidateError(self._sentence("total_time", seconds=self._limits.total_seconds, name=label),
                                 "timeout", label)
        started = time.monotonic()
        try:
            self._ensure_child(label)
            encoder = wire.Encoder(on_other=_encode_remote_object)
            full = dict(message, args=encoder.encode(list(args)),
                        kwargs=encoder.encode({str(k): v for k, v in kwargs.items()}))
            data = wire.frame(full, encoder.blob())
            deadline = time.monotonic() + min(self._limits.call_seconds, remaining)
            try:
                self._child.send(data, deadline)
                reply, blob = self._child.receive(deadline)
                return self._interpret(reply, blob, label)
            except _Fatal as fatal:
                if fatal.kind == "timeout" and remaining < self._limits.call_seconds:
                    self._fatal_sentence(fatal, label)     # retires the child
                    raise CandidateError(self._sentence("total_time", seconds=self._limits.total_seconds,
                                                        name=label), "timeout", label) from None
                raise CandidateError(self._fatal_sentence(fatal, label), fatal.kind, label) from None
        finally:
            self._spent += time.monotonic() - started

    def _interpret(self, reply: dict, blob: bytes, label: str):
        if len(reply) != 1:
            raise _Fatal("garbled")
        (key, value), = reply.items()
        limits = self._limits
        if key == "ok":
            generation = self._generation
            try:
                return wire.decode_value(value, blob, max_elements=limits.result_mb * 2**20,
                                         make_ref=lambda ref, type_name: RemoteObject(self, ref, type_name, generation))
            except wire.ProtocolError:
                raise _Fatal("garbled") from None
        if key == "raised" and isinstance(value, dict):
            type_name = clean_text(value.get("type"), 60) or "Exception"
            detail = clean_text(value.get("detail"), 200)
            if detail:
                text = self._sentence("raised", name=label, type=type_name, detail=detail)
            else:
                text = self._sentence("raised_plain", name=label, type=type_name)
            raise CandidateError(text, "raised", label)
        if key == "returned":
            raise CandidateError(self._sentence("returned", name=label, type=clean_text(value, 60) or "?"),
                                 "returned", label)
        if key == "missing":
            raise CandidateError(self._sentence("missing", name=label), "missing", label)
        if key == "exited":
            code = value if type(value) is int else 1
            raise CandidateError(self._sentence("exited", code=code, where=messages.where(label, self._sandbox.lang)),
                                 "exited", label)
        if key == "file_size":
            raise CandidateError(self._sentence("file_size", mb=limits.file_size_mb,
                                                where=messages.where(label, self._sandbox.lang)), "file_size", label)
        if key == "memory":
            raise CandidateError(self._sentence("memory", mb=limits.memory_mb,
                                                where=messages.where(label, self._sandbox.lang)), "memory", label)
        raise _Fatal("garbled")


def _encode_remote_object(value):
    if isinstance(value, RemoteObject):
        return {"ref": [value._ref, value._type_name]}
    raise wire.Unencodable(type(value).__name__)


class _RemoteFunction:
    def __init__(self, candidate: Candidate, name: str):
        self._candidate = candidate
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._candidate.call(self._name, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<remote {self._name}>"


class RemoteObject:
    """An object living in the child (e.g. the student's TiedLM). Calls go through the candidate."""

    def __init__(self, candidate: Candidate, ref: int, type_name: str, generation: int):
        self._candidate = candidate
        self._ref = ref
        self._type_name = clean_text(type_name, 60) or "object"
        self._generation = generation

    def __repr__(self) -> str:
        return f"<remote {self._type_name}>"

    def _do(self, message: dict, args=(), kwargs=None, *, label: str):
        return self._candidate._request(dict(message, ref=self._ref), args, kwargs or {},
                                        label=label, generation=self._generation)

    def __call__(self, *args, **kwargs):
        """The object's forward (calls the object itself, as nn.Module does)."""
        return self._do({"op": "method", "name": "__call__"}, args, kwargs, label=f"{self._type_name}.forward")

    def call(self, method: str, *args, **kwargs):
        return self._do({"op": "method", "name": method}, args, kwargs, label=f"{self._type_name}.{method}")

    def get(self, path: str):
        """The value at attribute path `path` (e.g. "lm_head.weight"), as a plain tensor or value."""
        return self._do({"op": "get", "path": path}, label=f"{self._type_name}.{path}")

    def set(self, path: str, value) -> None:
        """Copy `value` into the existing tensor at `path` (under no_grad)."""
        self._do({"op": "set", "path": path}, (value,), label=f"{self._type_name}.{path}")

    def parameters(self) -> list[tuple[str, tuple[int, ...]]]:
        """[(name, shape)] from named_parameters() (a shared Parameter is listed once)."""
        result = self._do({"op": "parameters"}, label=f"{self._type_name}.named_parameters")
        if not isinstance(result, list):
            raise CandidateError(self._candidate._sentence("returned", name=f"{self._type_name}.named_parameters",
                                                           type=type(result).__name__), "returned")
        cleaned = []
        for item in result:
            if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                    and isinstance(item[1], tuple) and all(type(s) is int for s in item[1])):
                cleaned.append((clean_text(item[0], 200), item[1]))
            else:
                raise CandidateError(self._candidate._sentence(
                    "garbled", where=messages.where(f"{self._type_name}.named_parameters", self._candidate._sandbox.lang)),
                    "garbled")
        return cleaned
