"""The grader's end of the warm worker: spawn it (a fresh interpreter, never a fork of the
grader), ask it to fork a child per submission (receiving the child's socket and output pipe
as file descriptors), and ask how a child ended."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from grader import prestart

from . import wire
from .errors import SandboxError

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def python_paths() -> list[str]:
    import site

    paths = {sys.base_prefix, sys.prefix, *site.getsitepackages()}
    try:
        paths.add(site.getusersitepackages())
    except Exception:
        pass
    return sorted(p for p in paths if p and os.path.isdir(p))


class WorkerProcess:
    """The spawned warm worker and its control socket. It adopts the worker that
    grader.prestart launched early, if any, else launches one (grader/prestart.py: the launch
    and the worker's environment). With `wait=False` it does not wait for the worker to be
    ready (to have imported torch) until the first `spawn`: the caller goes on meanwhile.
    `preload`: what the worker imports before it forks (its course's Course.preload_modules)."""

    def __init__(self, preload: Sequence[str] = (), wait: bool = True):
        self.process: subprocess.Popen | None
        self.preload = tuple(preload)
        self.reader = wire.FrameReader(max_json=1 << 20, max_blob=0)
        self.on_main_thread = threading.current_thread() is threading.main_thread()
        kept = prestart.take_kept(preload)
        if kept is not None and self._in_step(kept):
            (self.process, self.sock), self.ready, self.on_main_thread = kept, True, True
            return
        self.process, self.sock = prestart.take_early(preload) or prestart.launch(preload)
        self.ready = False
        if wait:
            self.wait_ready()

    def _in_step(self, kept: prestart.Launched) -> bool:
        """Whether a kept worker answers a request with its answer (else it is stopped)."""
        self.process, self.sock = kept
        self.ready = True
        try:
            self._send({"op": "status", "pid": 0, "wait": 0})
            if "status" in self._receive(timeout=5):
                return True
        except (OSError, SandboxError, ValueError):
            pass
        self.reader = wire.FrameReader(max_json=1 << 20, max_blob=0)
        prestart.discard(kept)
        return False

    @classmethod
    def attached(cls, sock: socket.socket) -> "WorkerProcess":
        """A second control socket of a worker another process launched (`attach`): it asks the
        same worker for children, and closing it closes the socket only, never the worker."""
        worker = cls.__new__(cls)
        worker.process, worker.sock = None, sock
        worker.reader = wire.FrameReader(max_json=1 << 20, max_blob=0)
        worker.ready = True
        return worker

    def attach(self) -> socket.socket:
        """A new control socket of this (ready) worker, for a grading process forked from this one."""
        _, fds = self._request_fds({"op": "attach"}, "attached", 1, "could not attach a second grader")
        return socket.socket(fileno=fds[0])

    def wait_ready(self) -> None:
        if self.ready:
            return
        try:
            ready = self._receive(timeout=120)
        except SandboxError:
            self.close()
            raise SandboxError("the sandbox worker did not start") from None
        if "ready" not in ready:
            self.close()
            raise SandboxError("the sandbox worker did not start")
        self.ready = True

    def alive(self) -> bool:
        if self.process is None:  # attached: alive while its socket is (a dead worker closes it)
            return self.sock.fileno() >= 0
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
        pid, fds = self._request_fds({"op": "spawn", "spec": spec}, "spawned", 2, "could not fork")
        return pid, socket.socket(fileno=fds[0]), fds[1]

    def _request_fds(self, message: dict, answer: str, count: int, failure: str) -> tuple[Any, list[int]]:
        """Send `message` and take the reply's `answer` with the `count` descriptors it carries."""
        self.wait_ready()
        self._send(message)
        reply = self._receive(timeout=30, with_fds=True)
        fds = reply.get("_fds", [])
        if answer not in reply or len(fds) != count:
            for fd in fds:
                os.close(fd)
            raise SandboxError(f"the sandbox worker {failure}")
        return reply[answer], fds

    def status(self, pid: int, wait: float) -> dict:
        self._send({"op": "status", "pid": pid, "wait": wait})
        return self._receive(timeout=wait + 10)["status"]

    def close(self, keep: bool = False) -> None:
        """Stop the worker; with `keep`, a healthy one (ready, no request half answered, launched and
        closed on the main thread) is kept for this process's next sandbox of the same course instead
        (grader/prestart.py). The caller has ended every child it asked this worker for."""
        if keep and self._keepable():
            assert self.process is not None
            prestart.keep((self.process, self.sock), self.preload)
            return
        try:
            self.sock.close()
        except OSError:
            pass
        if self.process is None:  # attached: the worker is its launcher's to end
            return
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def _keepable(self) -> bool:
        return (
            self.process is not None
            and self.ready
            and self.process.poll() is None
            and self.sock.fileno() >= 0
            and not self.reader.buffer
            and self.on_main_thread
            and threading.current_thread() is threading.main_thread()
            and not sys.is_finalizing()
        )
