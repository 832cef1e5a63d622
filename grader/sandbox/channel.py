"""One sandboxed child as the grader sees it: its keeper's pid, the socket carrying frames and
the pipe carrying its output. Every read and write has a deadline; output beyond the cap, a
deadline passed, a closed socket or a malformed frame become a Fatal event."""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import time
from typing import Protocol

from . import wire
from .containment import Containment
from .limits import Limits
from grader.errors import CoursegenError

# The JSON part of a reply carries structure only (tensor bytes travel in the blob): 4 MB holds
# any honest reply; its values and nesting are counted before it is decoded (wire.parse_json).
MAX_JSON = 4 * 2**20
CPU_POLL_SECONDS = 0.05  # how often the child's CPU time is read while it computes


class Fatal(CoursegenError):
    """The child is gone or must be killed; `kind` and `fields` make the student's sentence."""

    def __init__(self, kind: str, **fields):
        super().__init__(kind)
        self.kind = kind
        self.fields = fields


class ChildHost(Protocol):
    """What a ChildChannel asks of the sandbox that forks its child (grader.sandbox.sandbox.Sandbox)."""

    def spawn_child(self, limits: Limits) -> tuple[int, socket.socket, int, str, Containment]:
        """A new isolated child: (keeper pid, socket, output pipe, working folder, its containment)."""
        ...

    def child_status(self, pid: int, wait: float) -> dict:
        """How the child `pid` ended ({"exit", "signal"}), waiting up to `wait` seconds."""
        ...

    def end_child(self, containment: Containment, label: str) -> None:
        """Kill every process of the child now; check meanwhile that nothing of it is left."""
        ...


class ChildChannel:
    """One isolated child: its keeper pid, socket and output pipe; enforces wall time and output."""

    def __init__(self, sandbox: ChildHost, limits: Limits, label: str = ""):
        self.sandbox = sandbox
        self.label = label
        self.limits = limits
        self.pid, self.sock, self.out_fd, self.workdir, self.containment = sandbox.spawn_child(limits)
        self.sock.setblocking(False)
        os.set_blocking(self.out_fd, False)
        self.reader = wire.FrameReader(max_json=MAX_JSON, max_blob=self.limits.result_mb * 2**20)
        self.pending: list[tuple[bytes, bytes]] = []
        self.output = bytearray()
        self.output_total = 0
        self.alive = True
        self.killed = False
        self.adopted = False

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Fatal("timeout")
            readable, writable, _ = select.select([self.out_fd], [self.sock], [], remaining)
            if readable:
                self._drain_output()
            if writable:
                try:
                    sent = self.sock.send(view)
                except BlockingIOError:
                    continue
                except OSError:
                    raise Fatal("died") from None
                view = view[sent:]

    def receive(
        self, deadline: float, frames_first: bool = False, cpu_budget: float | None = None
    ) -> tuple[dict, bytes]:
        """The next frame from the child, within the deadline, draining its output meanwhile.

        `frames_first`: a frame already sent is returned before the output is looked at (the
        child's "ready", read late by a look-ahead: the student's code may have printed past the
        cap since, and that is the student's output, to be charged to the next frame's wait).
        `cpu_budget`: the child's own CPU time (Containment.cpu_seconds) at which it times out;
        `deadline` (wall) is then only the backstop for code that sleeps or blocks."""
        while not self.pending:
            if self.reader.broken is not None:  # the frames before the fault were read first
                raise Fatal("garbled")
            remaining = deadline - time.monotonic()
            watched: list[socket.socket | int] = [self.sock, self.out_fd]
            wait = max(remaining, 0.0) if cpu_budget is None else min(max(remaining, 0.0), CPU_POLL_SECONDS)
            # past the deadline, a frame already waiting (a look-ahead's "ready", read late because
            # the previous submission took long to check) is still read: only an empty socket times out
            readable, _, _ = select.select(watched, [], [], wait)
            if remaining <= 0 and self.sock not in readable:
                raise Fatal("timeout")
            if cpu_budget is not None and self.sock not in readable:
                used = self.containment.cpu_seconds()
                if used is not None and used >= cpu_budget:
                    raise Fatal("timeout")
            if self.out_fd in readable and not (frames_first and self.sock in readable):
                self._drain_output()
            if self.sock in readable:
                try:
                    data = self.sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    raise Fatal("died")
                try:
                    self.pending += self.reader.feed(data)
                except wire.ProtocolError:
                    raise Fatal("garbled") from None
        body, blob = self.pending.pop(0)
        if not self.adopted:  # the runner exists once a frame (its "ready") came from it
            self.adopted = True
            self.containment.adopt_runner()
        try:
            return wire.parse_json(body), blob
        except wire.ProtocolError:
            raise Fatal("garbled") from None

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
                raise Fatal("output", kb=self.limits.output_kb)

    def kill(self) -> None:
        if self.alive and not self.killed:
            self.killed = True
            self.containment.kill()  # the runner through its pidfd, the cgroups as a whole
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
        except Fatal:
            pass
        if wait <= 0:  # a normal close: kill, and let the worker reap it later
            self.kill()
            status: dict = {"exit": None, "signal": signal.SIGKILL}
        else:
            status = self.sandbox.child_status(self.pid, wait)
            if status.get("signal") == signal.SIGKILL and self.containment.oom_killed():
                status = dict(status, oom=True)  # the cgroup's memory limit, not RLIMIT_CPU
        # nothing of the child may outlive this: all of it killed now, checked to be gone meanwhile
        self.sandbox.end_child(self.containment, os.path.basename(self.label))
        self.alive = False
        for close in (self.sock.close, lambda: os.close(self.out_fd)):
            try:
                close()
            except OSError:
                pass
        shutil.rmtree(self.workdir, ignore_errors=True)
        return status
