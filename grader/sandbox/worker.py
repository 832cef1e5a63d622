"""The warm worker: a fresh interpreter, spawned by the grader, that has imported what the course
requires (argv[3], from `requires:` in course.yaml: torch with one thread and no op run, for a course
that uses it; the standard library's common modules and numpy always) and forks one isolated child
per loaded submission.

It holds no reference code, no checks and no seed. Control messages from the grader arrive
on the socket passed as argv[2] (frames of wire.py):

    {"op": "spawn", "spec": {...}}  -> {"spawned": keeper_pid} with two fds attached:
                                       the child's socket and the read end of its output pipe
    {"op": "status", "pid", "wait"} -> {"status": {"exit": code|None, "signal": n|None}}
    {"op": "attach"}                -> {"attached": true} with one fd attached: a new control
                                       socket, served like the first (a second grading process
                                       of the same grader, grader/running/partner.py, asks over it)

Each request is answered on the socket it came on. A control socket that closes or fails (its
grader ended or died) is dropped alone, and the keepers spawned for it are killed: no child outlives
the grader that holds it. The worker ends with its last control socket (and, by PR_SET_PDEATHSIG,
when the grader that launched it dies).

Process tree per submission:  worker -> keeper (new namespaces) -> runner (pid 1, runs the code).
The worker forks the next keeper ahead (a spare, blocked until a spawn hands it its spec as the first
frame on its socket), so the fork of this large process is never on the grader's path.
The keeper only waits for the runner and dies the way it died, so the worker can tell the grader
how the student's code ended. Without a pid namespace the keeper is the runner itself.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from typing import Any

RUNTIME_BROKEN = 70  # exit status of a child whose sandbox runtime failed (EX_SOFTWARE)
PRELOAD = (
    "math",
    "cmath",
    "random",
    "itertools",
    "functools",
    "collections",
    "dataclasses",
    "typing",
    "numbers",
    "statistics",
    "copy",
    "re",
    "string",
    "json",
    "warnings",
    "numpy",
)


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[2]))
    course = [n for n in (sys.argv[3] if len(sys.argv) > 3 else "").split(",") if n]  # the course's requires
    _forget_command_line()
    import importlib

    if "torch" in course:
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:  # not installed: the course's code will say so when it needs it
            pass
    for name in (*PRELOAD, *course):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    from . import isolation, runtime, wire

    import gc

    gc.collect()
    gc.freeze()  # forked children then never touch these objects' pages (cheaper copy-on-write)

    if sys.platform.startswith("linux"):
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # die with the grader
    worker = Worker(control, isolation, runtime, wire)
    worker.reply({"ready": {"pid": os.getpid()}})
    worker.spare = worker.fork_keeper()  # while the grader still imports: the first spawn finds it
    worker.loop()


def _forget_command_line() -> None:
    """Blank the project folder from sys.argv and from the process's own argument memory
    (/proc/self/cmdline), which every forked child would otherwise inherit."""
    del sys.argv[1:]
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48, 49)
        with open("/proc/self/cmdline", "rb") as handle:
            args = handle.read().split(b"\0")
        keep = len(b"\0".join(args[:3])) + 1  # python -I -c: the code is public
        if 0 < keep < end - start:
            ctypes.memset(start + keep, 0, end - start - keep)
    except (OSError, ValueError, IndexError):
        pass


class Worker:
    def __init__(self, control, isolation, runtime, wire):
        self.isolation, self.runtime, self.wire = isolation, runtime, wire
        self.controls: dict[socket.socket, Any] = {}  # control socket -> its FrameReader
        self.control = control  # the socket of the request being answered
        self._add_control(control)
        self.children: set[int] = set()
        self.owners: dict[int, socket.socket] = {}  # keeper pid -> the control socket that asked for it
        self.statuses: dict[int, dict] = {}
        # a keeper forked ahead of the next spawn, waiting for its spec: (pid, socket, output pipe)
        self.spare: tuple[int, socket.socket, int] | None = None

    def _add_control(self, control: socket.socket) -> None:
        self.controls[control] = self.wire.FrameReader(max_json=1 << 26, max_blob=0)

    def reply(self, message: dict, fds: list[int] | None = None) -> None:
        data = self.wire.frame(message)
        if fds:
            socket.send_fds(self.control, [data], fds)
        else:
            self.control.sendall(data)

    def loop(self) -> None:
        import select

        while True:
            ready = select.select(list(self.controls), [], [])[0] if len(self.controls) > 1 else list(self.controls)
            for control in ready:
                self.control = control
                try:
                    data = control.recv(1 << 16)
                    for body, _ in self.controls[control].feed(data) if data else ():
                        self.answer(self.wire.parse_json(body))
                except OSError:  # that grader died mid-exchange: it alone is dropped
                    data = b""
                if not data:
                    self.drop(control)

    def drop(self, control: socket.socket) -> None:
        """A grader's control socket closed (it ended, or died): the keepers it asked for are killed
        (each takes its runner's pid namespace with it), so no child outlives the grader holding it;
        the worker ends with its last socket."""
        del self.controls[control]
        control.close()
        for pid in [pid for pid, owner in self.owners.items() if owner is control]:
            del self.owners[pid]
            if pid in self.children:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if not self.controls:
            os._exit(0)

    def answer(self, message: dict) -> None:
        self.reap()
        if message["op"] == "spawn":
            self.spawn(message["spec"])
        elif message["op"] == "status":
            self.reply({"status": self.status(message["pid"], float(message["wait"]))})
        elif message["op"] == "attach":
            ours, theirs = socket.socketpair()
            self._add_control(ours)
            self.reply({"attached": True}, [theirs.fileno()])
            theirs.close()

    def spawn(self, spec: dict) -> None:
        """Hand the spare keeper its spec (the first frame on its socket, before the grader's private
        one) and its socket and output pipe to the grader; then fork the next spare, while the grader
        works: the fork of this large process is off the grader's path."""
        spare, self.spare = self.spare, None
        if spare is None or not self._waiting(spare[0]):
            spare = self.fork_keeper()
        pid, parent_end, out_read = spare
        parent_end.sendall(self.wire.frame(spec))
        self.children.add(pid)
        self.owners[pid] = self.control
        self.reply({"spawned": pid}, [parent_end.fileno(), out_read])
        parent_end.close()
        os.close(out_read)
        self.spare = self.fork_keeper()

    def _waiting(self, pid: int) -> bool:
        """Whether a spare keeper still waits for its spec (it never ends by itself)."""
        try:
            return os.waitpid(pid, os.WNOHANG)[0] == 0
        except ChildProcessError:
            return False

    def fork_keeper(self) -> tuple[int, socket.socket, int]:
        """A keeper forked now, blocked until its spec arrives on its socket (worker.run_child)."""
        parent_end, child_end = socket.socketpair()
        out_read, out_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                for control in self.controls:
                    control.close()
                parent_end.close()
                os.close(out_read)
                run_child(child_end, out_write, self.isolation, self.runtime)
            except BaseException:
                try:
                    import traceback

                    traceback.print_exc()  # into the child's output pipe once confined
                except BaseException:
                    pass
            finally:
                os._exit(RUNTIME_BROKEN)
        child_end.close()
        os.close(out_write)
        return pid, parent_end, out_read

    def reap(self) -> None:
        for pid in list(self.children):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                self.children.discard(pid)
                continue
            if done:
                self.children.discard(pid)
                self.owners.pop(pid, None)
                self.statuses[pid] = describe(status)
        while len(self.statuses) > 1000:
            self.statuses.pop(next(iter(self.statuses)))

    def status(self, pid: int, wait: float) -> dict:
        deadline = time.monotonic() + wait
        while pid in self.children and time.monotonic() < deadline:
            time.sleep(0.002)
            self.reap()
        if pid in self.children:  # still running although its socket closed: not the kernel's doing
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.children.discard(pid)
            self.owners.pop(pid, None)
            self.statuses[pid] = {"exit": None, "signal": signal.SIGKILL, "forced": True}
        return self.statuses.pop(pid, {"exit": None, "signal": None})


def describe(status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"exit": None, "signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status), "signal": None}


def run_child(sock: socket.socket, out_fd: int, isolation, runtime) -> None:
    """In the keeper: wait for its spec, isolate, fork the runner into the new pid namespace,
    mirror its end."""
    os.setsid()
    low, high = sorted((sock.fileno(), out_fd))
    os.closerange(3, low)  # every inherited descriptor but the two we keep
    os.closerange(low + 1, high)
    os.closerange(high + 1, 65536)
    if sys.platform.startswith("linux"):
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # a spare dies with its worker
    try:
        spec = _receive_frame(sock, timeout=None)  # from the worker, when a grader asks for a child
    except EOFError:  # a spare whose worker closed: it was never needed, and ends without a word
        os._exit(0)
    # The paths to hide and probe come from the grader on this child's own socket, never through
    # the worker (whose stack and buffers every child inherits); they are erased before student
    # code runs (runtime.serve), so the child does not hold them.
    spec = dict(spec, **_receive_private_spec(sock))
    _join_cgroups(spec.pop("cgroups"))  # before any fork: every process of the child is born inside
    # the runner's leaves (limited), opened here while the host's cgroup folders are in view
    runner_leaves = _open_all(spec.pop("runner_cgroups"))
    tokens, new_pid_namespace = isolation.enter_namespaces(spec)
    if new_pid_namespace:
        runner = os.fork()
        if runner:
            sock.close()
            os.close(out_fd)
            _close_all(runner_leaves)
            _mirror(runner)
    # the runner leaves the keeper's cgroups for its own (limited) ones, before any student code
    for fd in runner_leaves:
        try:
            os.write(fd, b"0")  # "0": the writing process itself
        except OSError:
            pass
    _close_all(runner_leaves)
    sock_fd = isolation.confine(spec, tokens, sock.fileno(), out_fd)
    connection = socket.socket(fileno=sock_fd)
    runtime.serve(connection, tokens, spec)
    os._exit(0)


def _receive_frame(sock: socket.socket, timeout: float | None) -> dict:
    """Exactly one frame of JSON (the rest stays in the socket for the runner)."""
    import json
    import struct

    sock.settimeout(timeout)
    try:
        header = sock.recv(8, socket.MSG_WAITALL)
        if not header:
            raise EOFError("the socket closed before a frame")
        json_len, blob_len = struct.unpack(">II", header)
        if blob_len or json_len > 1 << 22:
            raise ValueError("bad spec frame")
        body = sock.recv(json_len, socket.MSG_WAITALL) if json_len else b""
    finally:
        sock.settimeout(None)
    message = json.loads(body)
    if not isinstance(message, dict):
        raise ValueError("bad spec frame")
    return message


def _receive_private_spec(sock: socket.socket) -> dict:
    """The grader's frame: {"hide": [...], "probes": [...], "cgroups": [...], ...}."""
    message = _receive_frame(sock, timeout=30)
    private = {"hide": [str(p) for p in message.get("hide", [])], "probes": [str(p) for p in message.get("probes", [])]}
    for key in ("cgroups", "runner_cgroups"):
        joins = message.get(key, [])
        private[key] = [str(p) for p in joins if type(p) is str and p.startswith("/") and p.endswith("/cgroup.procs")]
    if type(message.get("uid")) is int:  # this child's own uid, from the grader's pool
        private["uid"] = message["uid"]
    return private


def _join_cgroups(paths: list[str]) -> None:
    """Move this keeper into the cgroups the grader made for its child (grader/sandbox/
    containment.py); one it cannot join is left empty, and the grader drops it when the child
    reports ready."""
    pid = str(os.getpid())
    for path in paths:
        try:
            with open(path, "w") as handle:
                handle.write(pid)
        except OSError:
            pass


def _open_all(paths: list[str]) -> list[int]:
    fds = []
    for path in paths:
        try:
            fds.append(os.open(path, os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            pass
    return fds


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _mirror(pid: int) -> None:
    """Wait for the runner and end the same way (same exit code, or killed by the same signal)."""
    resource_core_off()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))


def resource_core_off() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


if __name__ == "__main__":
    main()
