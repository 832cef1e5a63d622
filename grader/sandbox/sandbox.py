"""Sandbox: the grader's handle on the sandbox. It owns the warm worker, builds the spec of each
child (limits, paths to hide, the Python installation to keep visible) and loads submissions.

Nothing that comes from the child is trusted: frames are size-capped, values decoded by
wire.decode_value (tensors rebuilt from raw bytes, dtype allowlist), strings cleaned and
truncated; every limit is enforced from the grader (wall time, output size) or by the kernel.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import uuid
import weakref
from typing import TYPE_CHECKING

from . import wire
from .candidate import Candidate, start_loading
from .containment import UIDS, Containment, cgroup_roots, cpu_is_fair
from .control import PROJECT_ROOT, WorkerProcess, python_paths
from .errors import SandboxError
from .limits import Limits

if TYPE_CHECKING:
    from grader.course import Course

# Top-level folders the child keeps: the operating system and Python need them. Every other
# folder at / (home folders, /work, /srv, /opt, /mnt, other checkouts of the course with their
# solutions) is covered by an empty tmpfs in the child; the Python installation is bound back
# wherever it lies. A deny-list of known secrets would miss the copy nobody thought of.
SYSTEM_FOLDERS = frozenset(
    {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "tmp", "usr", "var"}
)


def folders_outside_the_system() -> list[str]:
    """Every real folder directly under / that is not part of the operating system."""
    try:
        names = sorted(os.listdir("/"))
    except OSError:
        return []
    return [
        f"/{name}"
        for name in names
        if name not in SYSTEM_FOLDERS and os.path.isdir(f"/{name}") and not os.path.islink(f"/{name}")
    ]


def installed_course_folders() -> list[str]:
    """Where the importable course and engine packages lie: the references (from the course root,
    or from site-packages where an exported grading package installed them with the checks), the
    grader, the build engine. Hidden from the child even when they lie inside the Python
    installation it must see. coursegen's own distribution installs no course: there `solutions`
    is the course root's, already hidden as a whole."""
    import importlib.util

    folders = []
    for name in ("solutions", "grader", "coursegen"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            if os.path.isdir(location):
                folders.append(os.path.realpath(location))
    return folders


def course_root_folders(root: str | os.PathLike) -> tuple[list[str], list[str]]:
    """(folders to hide, paths to probe) of the course root. The root is hidden as a whole and
    probed at its references and checks; unless it is (or holds, or lies in) the Python
    installation, as for an exported grading package installed into site-packages: its course
    packages are then hidden one by one (installed_course_folders), and only probed here."""
    import site
    import sys
    from pathlib import Path

    resolved = Path(root).resolve()
    probes = [str(resolved / "solutions"), str(resolved / "grader" / "checks")]
    python = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, *site.getsitepackages()) if p}
    if any(p == resolved or p.is_relative_to(resolved) or resolved.is_relative_to(p) for p in python if p != Path("/")):
        return [], probes
    return [str(resolved)], probes


class Sandbox:
    """Runs submissions in isolated children of one warm worker. `hide` adds paths the child
    must not see (the gradebook, the output folder); the project root, the course root, the grader's
    home and working folder and /autograder are always hidden where a mount namespace is available.
    `course` (grader.course.Course) is the course whose submissions it runs: its root is hidden and
    its warm worker preloads what the course requires (torch for a torch course); without one, the
    worker preloads nothing and no course folder is hidden beyond the always-hidden ones.
    $COURSEGEN_SANDBOX_LIMITS overrides fields of `limits` (see Limits.with_environment)."""

    def __init__(
        self,
        limits: Limits | None = None,
        lang: str = "en",
        hide: tuple[str, ...] = (),
        namespaces: bool = True,
        refuse_readable: bool | None = None,
        course: Course | None = None,
    ):
        self.course = course
        self.limits = (limits or Limits()).with_environment()
        self.lang = lang if lang in ("en", "zh") else "en"
        self.extra_hidden = [str(p) for p in hide]
        self.namespaces = namespaces  # False: the fallback of machines without them (tests, debugging)
        # Refuse to run student code when a probe (the references, the gradebook) is readable from
        # the child; by default wherever isolation is asked for (grading), not in the debug fallback.
        self.refuse_readable = namespaces if refuse_readable is None else refuse_readable
        self._worker: WorkerProcess | None = None
        self._isolation: list[str] | None = None
        self._candidates: weakref.WeakSet = weakref.WeakSet()  # closed with the sandbox
        self._containments: set[Containment] = set()  # every child not yet checked to be gone
        self._settling: set[threading.Thread] = set()  # checks of a child's end still running
        self._lock = threading.Lock()
        self.leftovers: list[str] = []  # what was left of a child after its end (should stay empty)

    # ---- lifecycle --------------------------------------------------------------------
    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for candidate in list(self._candidates):
            candidate.close()
        self._end_children()  # before the worker: its death must not be how a child ends
        if self._worker is not None:
            # every child ended, nothing of one left: the worker may serve this process's next sandbox
            self._worker.close(keep=not self.leftovers)
            self._worker = None
        self._end_children()

    def _end_children(self) -> None:
        """Kill every child not yet ended, wait for the checks still running, and check that
        nothing of any child is left."""
        for thread in list(self._settling):
            thread.join()
        for containment in list(getattr(self, "_containments", ())):
            self._ended(containment, containment.end())

    def end_child(self, containment: Containment, label: str) -> None:
        """A child's end: killed now (every process at once); the check that nothing of it is
        left (waiting for its processes to be gone, then releasing its cgroups and uid) runs
        meanwhile in a helper thread, so grading goes on at once; `close` waits for it."""
        containment.kill()
        containment.label = label

        def settle() -> None:
            try:
                self._ended(containment, containment.end())
            finally:
                self._settling.discard(threading.current_thread())

        thread = threading.Thread(target=settle, name="coursegen-child-end", daemon=True)
        self._settling.add(thread)
        thread.start()

    def _ended(self, containment: Containment, leftover: str) -> None:
        with self._lock:
            self._containments.discard(containment)
            if leftover:
                self.leftovers.append(f"{getattr(containment, 'label', '') or 'a submission'}: {leftover}")

    def take_leftovers(self, wait: bool = False) -> list[str]:
        """What was left alive of children ended since the last call (one line each); with
        `wait`, once every check of a child's end still running is done. The grading session
        reports it with the submission and ends the batch with it."""
        if wait:
            for thread in list(self._settling):
                thread.join()
        with self._lock:
            found, self.leftovers[:] = list(self.leftovers), []
        return found

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def start(self) -> None:
        """Launch the warm worker now without waiting for it (it gets ready while the caller
        imports and collects); the first `load` waits. Call it from the thread that grades:
        the worker dies with the thread that launched it (PR_SET_PDEATHSIG)."""
        if self._worker is None:
            self._worker = WorkerProcess(self._preload(), wait=False)

    def attach_partner(self) -> socket.socket:
        """A control socket of this sandbox's warm worker (started and ready) for a grading process
        forked from this one (grader/running/partner.py), to be handed to its `become_partner`."""
        self.start()
        assert self._worker is not None
        return self._worker.attach()

    def shares_cpu_fairly(self) -> bool:
        """Whether two children timed at once are each charged their own CPU time at an equal weight
        (a cgroup CPU clock and weight for every child): only then may a second grading process
        (grader/running/partner.py) time a child while this one times another."""
        return cpu_is_fair()

    def become_partner(self, worker_sock: socket.socket) -> None:
        """In a process forked from this sandbox's grader: forget what the fork copied of the first
        process's children and worker (theirs to end: never touched here) and ask the same warm
        worker for children over `worker_sock`."""
        if self._worker is not None:
            self._worker.sock.close()  # this process's copy of the first one's control socket
        self._worker = WorkerProcess.attached(worker_sock)
        self._candidates = weakref.WeakSet()
        self._containments = set()
        self._settling = set()
        self._lock = threading.Lock()
        self.leftovers = []

    def load(self, code: str, filename: str = "submission.py", limits: Limits | None = None) -> "Candidate":
        """Fork an isolated child and execute `code` in it as a module (named after `filename`).
        `limits` overrides the sandbox's limits for this submission."""
        candidate = Candidate(self, code, filename, limits or self.limits)
        self._candidates.add(candidate)
        start_loading(candidate, ahead=False)
        return candidate

    def load_ahead(self, code: str, filename: str = "submission.py", limits: Limits | None = None) -> "Candidate":
        """Like `load`, but returns once the child is forked and has the code: it isolates
        itself and executes the code while the caller grades something else. Call the
        candidate's `wait_loaded()` (raises what `load` raises) before using it."""
        candidate = Candidate(self, code, filename, limits or self.limits)
        self._candidates.add(candidate)
        start_loading(candidate, ahead=True)
        return candidate

    @property
    def isolation(self) -> list[str]:
        """What isolation is in force (tokens such as 'pid-namespace', 'unprivileged-user:nobody',
        'hidden:/path'); 'READABLE:<path>' entries warn that a secret path was readable."""
        if self._isolation is None:
            with self.load(""):
                pass
        return list(self._isolation or [])

    def record_isolation(self, isolation: list[str]) -> None:
        """What the latest child reported (Candidate.wait_loaded): `isolation` gives it."""
        self._isolation = list(isolation)

    # ---- internals --------------------------------------------------------------------
    def _preload(self) -> tuple[str, ...]:
        return self.course.preload_modules if self.course is not None else ()

    def _spawn_spec(self, workdir: str, limits: Limits) -> dict:
        """What the worker needs to fork a child; nothing secret (every child inherits the worker)."""
        return {"limits": limits.as_dict(), "workdir": workdir, "expose": python_paths(), "namespaces": self.namespaces}

    def _private_spec(self) -> dict:
        """The paths to hide and to probe: sent to each child on its own socket (worker.run_child)."""
        try:
            cwd = os.getcwd()
        except OSError:  # the working folder was deleted
            cwd = ""
        installed = installed_course_folders()
        course, course_probes = course_root_folders(self.course.root) if self.course is not None else ([], [])
        hide = [
            str(PROJECT_ROOT),
            cwd,
            os.path.expanduser("~"),
            "/autograder",
            *course,
            *self.extra_hidden,
            *installed,
            *folders_outside_the_system(),
        ]
        probes = [
            str(PROJECT_ROOT / "solutions"),
            str(PROJECT_ROOT / "grader"),
            *course_probes,
            *installed,
            *self.extra_hidden,
        ]
        return {"hide": hide, "probes": list(dict.fromkeys(probes))}

    def spawn_child(self, limits: Limits) -> tuple[int, socket.socket, int, str, Containment]:
        # A fresh name only: the child creates the folder, on its private /tmp where there is one
        # (nothing to clean up on the host), else in the shared temp folder (removed on close).
        workdir = os.path.join(tempfile.gettempdir(), f"coursegen-sandbox-{uuid.uuid4().hex}")
        spec = self._spawn_spec(workdir, limits)
        for attempt in range(2):
            if self._worker is None or not self._worker.alive():
                self._worker = WorkerProcess(self._preload())
            try:
                pid, sock, out_fd = self._worker.spawn(spec)
                # the keeper waits for its private spec before it forks the runner: it is in its
                # own cgroups (and held by a pidfd) before any process of the child can exist
                cgroup_roots()  # once per grader: also ends what a grader that died left behind
                containment = Containment(spec["limits"], UIDS.take())
                containment.adopt_keeper(pid)
                private = self._private_spec()
                private["cgroups"] = containment.join_paths()
                private["runner_cgroups"] = containment.runner_join_paths()
                if containment.uid is not None:
                    private["uid"] = containment.uid
                try:
                    sock.sendall(wire.frame(private))
                except OSError:
                    containment.end()
                    sock.close()
                    os.close(out_fd)
                    raise
                with self._lock:
                    self._containments.add(containment)
                return pid, sock, out_fd, workdir, containment
            except (OSError, SandboxError):
                self._worker.close()
                self._worker = None
                if attempt:
                    raise SandboxError("the sandbox worker failed to start a child") from None
        raise AssertionError("unreachable")

    def child_status(self, pid: int, wait: float) -> dict:
        if self._worker is None:
            return {"exit": None, "signal": None}
        try:
            return self._worker.status(pid, wait)
        except (OSError, SandboxError):
            return {"exit": None, "signal": None}
