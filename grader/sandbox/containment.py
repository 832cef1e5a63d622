"""The grader's hold on every process of one sandboxed child, so that none outlives its grading.

Runs in the grader (trusted side), never in the child. For each child:

- a **cgroup of its own** in every hierarchy this machine offers and the grader may write (the
  cgroup v2 tree, and the v1 `pids`, `memory` and `freezer` controllers): `pids.max` bounds its
  processes and threads, a memory limit bounds all its processes together, and the whole group
  is killed at once (`cgroup.kill` on v2; on v1 frozen, every member sent SIGKILL, thawed). The
  grader creates them and names them in the keeper's private spec; the keeper joins them before
  it forks the runner (it runs no student code, and waits for that spec), so every process of the
  child is born inside, which the grader checks in /proc when the child is ready; the child, unprivileged,
  cannot leave (the `cgroup.procs` files belong to root and are read-only in its mount view).
- a **pidfd** on the keeper, taken right after the fork, and one on the runner (pid 1 of the
  child's pid namespace, the keeper's only child), taken when the child reports ready: killing
  the runner through it kills the whole namespace, whatever the child did to its signals,
  sessions or exit path (a pidfd cannot be redirected to another process by a recycled pid).
- a **uid** of its own while it lives (`UidPool`), so that process counts, file and pty
  ownership are not shared with any other child, of this grader or of another on the machine.

`Containment.end()` kills and then checks that nothing of the child is left (its cgroups empty,
its runner gone, no process left in its pid namespace); what is left is described in
`Containment.leftover`, which the grader reports (grader/running/session.py).
"""

from __future__ import annotations

import fcntl
import os
import random
import re
import select
import signal
import time
import uuid

CGROUP_MOUNTS = "/proc/self/mounts"
# Each child's cgroup, in a hierarchy that limits it (pids, memory), is a group of two leaves: KEEPER_LEAF holds the keeper
# (trusted: it forks the runner and mirrors its end), RUNNER_LEAF the runner and every process of
# the student's; the limits (pids.max, the memory limit) are the runner leaf's, so a child that
# fills its memory makes the kernel's OOM killer choose among its own processes, never the keeper.
KEEPER_LEAF, RUNNER_LEAF = "keeper", "runner"
V2_CONTROLLERS = ("pids", "memory", "cpu")
V1_CONTROLLERS = ("pids", "memory", "freezer", "cpu", "cpuacct")
# CPU weight of a child's group: every child the same, whatever it spawns (its processes share
# it); a child loaded ahead runs at the idle weight until the grader takes it up, so student code
# importing meanwhile cannot take CPU from the child being timed.
CPU_WEIGHT = {"v1": "1024", "v2": "100"}  # cpu.shares, cpu.weight: the kernel's defaults
IDLE_CPU_WEIGHT = {"v1": "2", "v2": "1"}  # the kernel's minimums
SETTLE_SECONDS = 5.0  # how long the processes of a killed child may take to disappear
PIDS_SLACK = 2  # the runner itself and one of slack, besides Limits.processes (the keeper is outside)
MEMORY_SLACK_MB = 256  # pages of the warm worker a child copies on write, besides Limits.memory_mb

_roots: dict[str, str] | None = None


def _own_cgroups(pid: int | str = "self") -> dict[str, str]:
    """{hierarchy key: the cgroup path of process `pid` in it}: "" for v2, controller names for v1."""
    own: dict[str, str] = {}
    try:
        with open(f"/proc/{pid}/cgroup") as handle:
            for line in handle:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for name in controllers.split(",") if controllers else [""]:
                    own[name] = path
    except OSError:
        pass
    return own


def cgroup_roots() -> dict[str, str]:
    """Where this grader may create child cgroups: {"v2"|"pids"|"memory"|"freezer": folder}.
    Empty where there are no cgroups, or they are read-only (a container), or not ours to write."""
    global _roots
    if _roots is not None:
        return dict(_roots)
    found: dict[str, str] = {}
    own = _own_cgroups()
    try:
        with open(CGROUP_MOUNTS) as handle:
            mounts = [line.split() for line in handle]
    except OSError:
        mounts = []
    for fields in mounts:
        if len(fields) < 4:
            continue
        point, fstype, options = fields[1], fields[2], fields[3].split(",")
        if "ro" in options:
            continue
        if fstype == "cgroup2" and "v2" not in found and "" in own:
            found["v2"] = point.rstrip("/") + own[""]
        elif fstype == "cgroup":
            for controller in V1_CONTROLLERS:
                if controller in options and controller not in found and controller in own:
                    found[controller] = point.rstrip("/") + own[controller]
    usable: dict[str, str] = {}
    for key, folder in found.items():  # try once: a folder we cannot create is no use
        probe = os.path.join(folder, f"coursegen-probe-{uuid.uuid4().hex[:12]}")
        try:
            os.mkdir(probe)
            os.rmdir(probe)
            usable[key] = folder
        except OSError:
            continue
    if "v2" in usable:
        _enable_v2_controllers(usable["v2"])
    _roots = usable
    for folder in usable.values():
        _sweep(folder)
    return dict(usable)


_OURS = re.compile(r"coursegen-(\d+)-[0-9a-f]{12}")


def _sweep(root: str) -> None:
    """Kill what is left in the child cgroups of a grader that died (SIGKILL, a crash: it could not
    end its children) and remove them, so no leftover of an earlier run outlives it further."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        found = _OURS.fullmatch(name)
        if not found:
            continue
        try:
            os.kill(int(found.group(1)), 0)
            continue  # its grader lives (or the pid is another process's now): not ours to touch
        except ProcessLookupError:
            pass
        except OSError:
            continue
        folder = os.path.join(root, name)
        if not _write(os.path.join(folder, "cgroup.kill"), "1"):
            for pid in _pids_under(folder):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for _ in range(100):
            if _remove_tree(folder):
                break
            time.sleep(0.01)


def _enable_v2_controllers(folder: str) -> None:
    """Let children of `folder` have pids, memory and cpu limits (fails harmlessly where the folder
    has processes of its own and is not the root: the limits then come from v1, or are absent)."""
    try:
        with open(os.path.join(folder, "cgroup.controllers")) as handle:
            available = handle.read().split()
    except OSError:
        return
    for controller in V2_CONTROLLERS:
        if controller in available:
            _write(os.path.join(folder, "cgroup.subtree_control"), f"+{controller}")


def _pids_under(folder: str) -> list[int]:
    """The pids in the cgroup `folder` and every cgroup below it (its keeper and runner leaves)."""
    found = []
    for current, _, _ in os.walk(folder):
        found += _pids_in(current)
    return found


def _remove_tree(folder: str) -> bool:
    """Remove the cgroup `folder` and the cgroups below it, deepest first; False while one still
    holds a process (the kernel refuses: EBUSY), True once it is gone. The leaves this module
    makes are removed by name (a walk lists every control file of every cgroup: milliseconds per
    child, in the grading process); anything else below is found by walking."""
    try:
        for leaf in (RUNNER_LEAF, KEEPER_LEAF):
            try:
                os.rmdir(os.path.join(folder, leaf))
            except FileNotFoundError:
                pass
        os.rmdir(folder)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        pass  # still populated, or a cgroup below it that is not one of ours: walk
    for current, _, _ in sorted(os.walk(folder), key=lambda entry: -entry[0].count("/")):
        try:
            os.rmdir(current)
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return True


def _write(path: str, text: str) -> bool:
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return True
    except OSError:
        return False


def _read(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def _pids_in(folder: str) -> list[int]:
    return [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split() if p.isdigit()]


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None


def _pidfd_kill(fd: int | None) -> None:
    if fd is None:
        return
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _pidfd_exited(fd: int | None) -> bool:
    if fd is None:
        return True
    return bool(select.select([fd], [], [], 0)[0])


def cpu_is_fair() -> bool:
    """Whether every child gets a CPU clock and weight of its own: v1's cpu and cpuacct controllers,
    or a v2 tree that offers the cpu controller."""
    roots = cgroup_roots()
    if "cpu" in roots and "cpuacct" in roots:
        return True
    v2 = roots.get("v2", "")
    return bool(v2) and "cpu" in _read(os.path.join(v2, "cgroup.controllers")).split()


class UidPool:
    """Unprivileged uids handed out one per live child, unique across every grader on this machine:
    a uid is taken by holding an exclusive lock on its file in a root-only folder (released when
    the child has ended and nothing of it is left, or when the grader dies)."""

    FIRST = 2_100_000_000  # far above any account (systemd's dynamic users end at 65519 and
    COUNT = 65_536  # container ranges are normally mapped at 100000 + n * 65536 far below this)
    FOLDER = "/run/coursegen-sandbox-uids"

    def __init__(self) -> None:
        self._ready: bool | None = None

    def _folder(self) -> str | None:
        if self._ready is None:
            self._ready = False
            if os.geteuid() == 0:
                for folder in (self.FOLDER, "/tmp/coursegen-sandbox-uids"):
                    try:
                        os.makedirs(folder, mode=0o700, exist_ok=True)
                        info = os.lstat(folder)
                        if info.st_uid == 0 and not info.st_mode & 0o077 and os.path.isdir(folder):
                            self.FOLDER = folder
                            self._ready = True
                            break
                    except OSError:
                        continue
        return self.FOLDER if self._ready else None

    def take(self) -> tuple[int, int] | None:
        """(uid, lock fd) of a uid no other live child has; None when not root."""
        folder = self._folder()
        if folder is None:
            return None
        chooser = random.SystemRandom()
        for _ in range(64):
            uid = self.FIRST + chooser.randrange(self.COUNT)
            path = os.path.join(folder, str(uid))
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            return uid, fd
        return None


UIDS = UidPool()


class Containment:
    """One child's cgroups, pidfds and uid; see the module's docstring."""

    def __init__(self, limits: dict, uid_lock: tuple[int, int] | None = None):
        self.limits = limits
        self.name = f"coursegen-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.cgroups: dict[str, str] = {}
        self.keeper_fd: int | None = None
        self.keeper = 0
        self.runner_fd: int | None = None
        self.runner = 0
        self.pid_namespace: str | None = None
        self.uid: int | None = uid_lock[0] if uid_lock else None
        self._uid_fd: int | None = uid_lock[1] if uid_lock else None
        self.ended = False
        self.leftover = ""
        self.failure = ""  # what of the hold on the child failed (its keeper killed), reported
        self.weighted = False  # its CPU weight set (set_cpu_weight)
        self.leafed: set[str] = set()  # hierarchies with keeper and runner leaves (the limited ones)
        self._killed_once = False
        self.label = ""  # the submission's file name, for the grader's report of a leftover

    # ---- set up, in the grader, before the keeper may fork the runner -----------------------
    def adopt_keeper(self, pid: int) -> None:
        """Take a pidfd on the keeper and create this child's own cgroups, limits set. The keeper
        joins them itself (`join_paths`, sent in its private spec) before it forks the runner: the
        move costs the kernel a few milliseconds per hierarchy, spent in the keeper on the other
        core instead of in the grading thread; `confirm_joined` checks it happened."""
        self.keeper = pid
        self.keeper_fd = _pidfd(pid)
        roots = cgroup_roots()
        for key, root in roots.items():
            if key == "cpuacct" and "v2" in roots:
                continue  # v2's cpu.stat counts the child's CPU time already
            folder = os.path.join(root, self.name)
            if folder in self.cgroups.values():  # controllers mounted together (cpu,cpuacct)
                self.cgroups[key] = folder
                continue
            try:
                os.mkdir(folder)
            except OSError:
                continue
            self.cgroups[key] = folder
            if key == "v2":
                _enable_v2_controllers(folder)  # before the leaves: the group itself holds no process
                limited = _read(os.path.join(folder, "cgroup.subtree_control")).split()
                if not {"pids", "memory"} & set(limited):
                    continue  # nothing to limit here: the group alone (killed and counted whole)
            elif key not in ("pids", "memory"):
                continue  # freezer, cpu, cpuacct: the group alone (its weight, its kill, its clock)
            try:
                os.mkdir(os.path.join(folder, KEEPER_LEAF))
                os.mkdir(os.path.join(folder, RUNNER_LEAF))
            except OSError:
                self._remove(key)
                continue
            self.leafed.add(key)
            self._limit(key, os.path.join(folder, RUNNER_LEAF))

    def _runner_folder(self, key: str) -> str:
        """Where the runner and the student's processes live in hierarchy `key`."""
        folder = self.cgroups.get(key, "/nonexistent")
        return os.path.join(folder, RUNNER_LEAF) if key in self.leafed else folder

    def join_paths(self) -> list[str]:
        """The `cgroup.procs` files the keeper writes its pid into, before it forks anything:
        its own leaf where the hierarchy limits the child, else the child's group."""
        paths = {
            os.path.join(folder, KEEPER_LEAF) if key in self.leafed else folder: None
            for key, folder in self.cgroups.items()
        }
        return [os.path.join(folder, "cgroup.procs") for folder in paths]

    def runner_join_paths(self) -> list[str]:
        """The `cgroup.procs` files the runner moves itself into (the keeper opens them before it
        forks; the runner writes "0" before it confines itself and runs any student code): the
        limited leaves."""
        return [os.path.join(self.cgroups[key], RUNNER_LEAF, "cgroup.procs") for key in sorted(self.leafed)]

    def set_cpu_weight(self, idle: bool) -> bool:
        """The child's CPU weight: the same for every child, or (`idle`, a child loaded ahead)
        the kernel's minimum. False where no cpu controller is ours to set."""
        weights = IDLE_CPU_WEIGHT if idle else CPU_WEIGHT
        done = False
        if "cpu" in self.cgroups:
            done = _write(os.path.join(self.cgroups["cpu"], "cpu.shares"), weights["v1"]) or done
        if "v2" in self.cgroups and os.path.exists(os.path.join(self.cgroups["v2"], "cpu.weight")):
            done = _write(os.path.join(self.cgroups["v2"], "cpu.weight"), weights["v2"]) or done
        self.weighted = self.weighted or done
        return done

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by every process of the child's runner leaf (the student's code),
        from its cgroup (v2 cpu.stat, else v1 cpuacct.usage); None where neither is available."""
        if "v2" in self.cgroups:
            for line in _read(os.path.join(self._runner_folder("v2"), "cpu.stat")).splitlines():
                name, _, value = line.partition(" ")
                if name == "usage_usec" and value.strip().isdigit():
                    return int(value) / 1e6
        if "cpuacct" in self.cgroups:
            text = _read(os.path.join(self._runner_folder("cpuacct"), "cpuacct.usage")).strip()
            if text.isdigit():
                return int(text) / 1e9
        return None

    def confirm_joined(self) -> None:
        """Once the child reported ready: keep the cgroups the keeper and the runner are in (read
        from /proc, not from the child); a hierarchy neither joined holds nothing and is dropped.
        A keeper already dead (killed: it runs no student code and never exits before the runner)
        is a containment failure: every cgroup is kept, to be killed whole at the child's end, and
        the failure is reported with the submission."""
        if self.keeper and _pidfd_exited(self.keeper_fd) and self._populated():
            self.failure = self.failure or "the keeper of the sandboxed child died while its processes lived"
            return
        keeper = _own_cgroups(self.keeper) if self.keeper else {}
        runner = _own_cgroups(self.runner) if self.runner else {}
        for key, folder in list(self.cgroups.items()):
            name = "" if key == "v2" else key
            keeper_at = f"{self.name}/{KEEPER_LEAF}" if key in self.leafed else self.name
            runner_at = f"{self.name}/{RUNNER_LEAF}" if key in self.leafed else self.name
            joined = keeper.get(name, "").endswith(keeper_at) and folder.endswith(
                keeper.get(name, "")[: -len(keeper_at)] + self.name
            )
            if not joined or (self.runner and not runner.get(name, "").endswith(runner_at)):
                if not _pids_under(folder):
                    self._remove(key)

    def _populated(self) -> bool:
        """Whether a process of the child lives on (not one still exiting: looked at twice)."""
        for attempt in range(2):
            if attempt:
                time.sleep(0.05)
            if not any(not _is_zombie(p) for folder in self.cgroups.values() for p in _pids_under(folder)):
                return False
        return True

    def _limit(self, key: str, folder: str) -> None:
        processes = int(self.limits.get("processes", 32)) + PIDS_SLACK
        memory = (int(self.limits.get("memory_mb", 1024)) + MEMORY_SLACK_MB) * 2**20
        if key == "pids":
            _write(os.path.join(folder, "pids.max"), str(processes))
        elif key == "memory":
            _write(os.path.join(folder, "memory.limit_in_bytes"), str(memory))
        elif key == "v2":
            _write(os.path.join(folder, "pids.max"), str(processes))
            _write(os.path.join(folder, "memory.max"), str(memory))
            _write(os.path.join(folder, "memory.swap.max"), "0")

    @property
    def tokens(self) -> list[str]:
        """Isolation tokens for what holds this child (added to the child's own list)."""
        found = []
        if "v2" in self.cgroups:
            found.append("cgroup-v2")
        found += [f"cgroup-v1:{key}" for key in V1_CONTROLLERS if key in self.cgroups]
        if self.weighted:
            found.append("cgroup-cpu-weight")
        if self.cpu_seconds() is not None:
            found.append("cpu-time-limits")
        if self.pids_limited:
            found.append("cgroup-pids-max")
        if self.memory_limited:
            found.append("cgroup-memory-max")
        if self.keeper_fd is not None:
            found.append("pidfd")
        return found

    @property
    def pids_limited(self) -> bool:
        return "pids" in self.cgroups or os.path.exists(os.path.join(self._runner_folder("v2"), "pids.max"))

    @property
    def memory_limited(self) -> bool:
        return "memory" in self.cgroups or os.path.exists(os.path.join(self._runner_folder("v2"), "memory.max"))

    def adopt_runner(self) -> None:
        """Take a pidfd on the runner (the keeper's only child) while the keeper still holds it."""
        if self.runner_fd is not None or not self.keeper or _pidfd_exited(self.keeper_fd):
            return
        children = _read(f"/proc/{self.keeper}/task/{self.keeper}/children").split()
        if len(children) != 1 or not children[0].isdigit():
            return
        runner = int(children[0])
        fd = _pidfd(runner)
        if fd is None:
            return
        # the pid was read from the keeper's own list and the keeper (alive) has not reaped it
        if _pidfd_exited(self.keeper_fd) or runner not in self._keeper_children():
            os.close(fd)
            return
        self.runner, self.runner_fd = runner, fd
        try:
            self.pid_namespace = os.readlink(f"/proc/{runner}/ns/pid")
            if self.pid_namespace == os.readlink("/proc/self/ns/pid"):
                self.pid_namespace = None  # no namespace of its own (the fallback)
        except OSError:
            self.pid_namespace = None

    def _keeper_children(self) -> list[int]:
        text = _read(f"/proc/{self.keeper}/task/{self.keeper}/children")
        return [int(p) for p in text.split() if p.isdigit()]

    def oom_killed(self) -> bool:
        """Whether the kernel's memory limit of this child's cgroup killed one of its processes."""
        if "memory" in self.cgroups:
            text = _read(os.path.join(self._runner_folder("memory"), "memory.oom_control"))
        elif "v2" in self.cgroups:
            text = _read(os.path.join(self._runner_folder("v2"), "memory.events"))
        else:
            return False
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                return True
        return False

    # ---- the end -----------------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL to every process of the child: its pid namespace through its init, its cgroups
        as a whole, and the keeper."""
        if not self._killed_once:
            self._killed_once = True
            # the keeper never ends before the runner (it waits for it): dead while the runner
            # lives, something killed it (the containment failed); reported with the submission
            if self.runner_fd is not None and _pidfd_exited(self.keeper_fd) and not _pidfd_exited(self.runner_fd):
                self.failure = self.failure or "the keeper of the sandboxed child died while its processes lived"
        if self.runner_fd is None:
            self.adopt_runner()
        _pidfd_kill(self.runner_fd)
        killed = "v2" in self.cgroups and _write(os.path.join(self.cgroups["v2"], "cgroup.kill"), "1")
        for key in ("freezer", "pids", "memory") if not killed else ():
            if key in self.cgroups:
                self._kill_v1(key)
                break
        _pidfd_kill(self.keeper_fd)

    def _kill_v1(self, key: str) -> None:
        folder = self.cgroups[key]
        freezer = self.cgroups.get("freezer", "")
        frozen = False
        if freezer:
            frozen = _write(os.path.join(freezer, "freezer.state"), "FROZEN")
            deadline = time.monotonic() + 0.5
            while frozen and time.monotonic() < deadline:  # FREEZING until every member stopped
                if _read(os.path.join(freezer, "freezer.state")).strip() == "FROZEN":
                    break
                time.sleep(0.001)
        self._kill_members(freezer or folder)
        if frozen:
            _write(os.path.join(freezer, "freezer.state"), "THAWED")  # the killed ones now die

    def _kill_members(self, folder: str) -> None:
        for _ in range(64):  # without a freezer a fork may race the kill: repeat until empty
            pids = _pids_under(folder)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if os.path.exists(os.path.join(folder, "freezer.state")):
                return

    def remaining(self, quick: bool = False) -> list[int]:
        """Host pids of the child's processes still alive (empty once it is all gone). `quick`: look
        in one hierarchy only, for polling (every process of the child is in each of them: the
        keeper joins them all before it forks, and no process of the child can leave); an empty
        quick answer is confirmed by a whole one."""
        left: set[int] = set()
        hierarchies = list(self.cgroups.items())
        for key, folder in hierarchies[:1] if quick else hierarchies:
            if key == "v2":
                events = _read(os.path.join(folder, "cgroup.events"))
                if "populated 0" in events:
                    continue
            left.update(p for p in _pids_under(folder) if not _is_zombie(p))
        if self.runner_fd is not None and not _pidfd_exited(self.runner_fd) and self.runner:
            left.add(self.runner)
        if not self.cgroups and self.pid_namespace:
            left.update(_processes_in_namespace(self.pid_namespace))
        return sorted(left)

    def end(self, settle: float = SETTLE_SECONDS) -> str:
        """Kill everything of the child, wait (up to `settle` s) until nothing is left, release
        the cgroups, pidfds and uid. Returns (and keeps in `leftover`) a description of what was
        still alive, "" when nothing was."""
        if self.ended:
            return self.leftover
        self.kill()
        deadline = time.monotonic() + settle
        left = self.remaining(quick=True) or self.remaining()
        pause = 0.0005
        killed_at = time.monotonic()
        while left and time.monotonic() < deadline:
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
            if time.monotonic() - killed_at > 0.1:  # a fork that raced the kill: again
                self.kill()
                killed_at = time.monotonic()
            left = self.remaining(quick=True) or self.remaining()
        if left:
            self.leftover = (
                f"{len(left)} process(es) of the sandboxed child still alive after it was killed "
                f"(host pids {', '.join(map(str, left[:8]))})"
            )
        if self.failure:
            self.leftover = "; ".join(
                filter(None, [self.failure + " (all of them killed)" if not left else self.failure, self.leftover])
            )
        self.ended = True
        for key in list(self.cgroups):
            if not self._remove(key):
                left = left or [0]  # a cgroup that still holds a process: its uid stays taken
        for fd in (self.runner_fd, self.keeper_fd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.runner_fd = self.keeper_fd = None
        if self._uid_fd is not None and not left:  # a uid whose processes live on stays taken
            os.close(self._uid_fd)
            self._uid_fd = None
        return self.leftover

    def _remove(self, key: str) -> bool:
        """Remove the cgroup `key` (its leaves first); False when it still holds a process."""
        folder = self.cgroups.pop(key, None)
        if folder is None or folder in self.cgroups.values():  # another key's too: removed with it
            return True
        for _ in range(50):
            if _remove_tree(folder):
                return True
            if not _pids_under(folder) and not os.path.isdir(folder):
                return True
            time.sleep(0.002)
        return not _pids_under(folder)


def _is_zombie(pid: int) -> bool:
    text = _read(f"/proc/{pid}/stat")
    if not text:
        return True  # gone
    try:
        return text.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except IndexError:
        return False


def _processes_in_namespace(namespace: str) -> list[int]:
    """Host pids of the processes in the pid namespace `namespace` ("pid:[inode]"); a scan of
    /proc, used only where the child has no cgroup."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{name}/ns/pid") == namespace and not _is_zombie(int(name)):
                found.append(int(name))
        except OSError:
            continue
    return found
