"""Linux isolation steps for the sandboxed child, each one optional and reported.

Runs only in forked children of the warm worker, never in the grader. Two phases:

- `enter_namespaces` (in the keeper, the first fork): new mount, network, IPC, UTS and pid
  namespaces (as root directly; otherwise inside a new user namespace), then a private view
  of the filesystem: fresh tmpfs on /tmp, /var/tmp, /dev/shm, and an empty tmpfs over every
  hidden path (the project with solutions/ and grader/, the grader's home and working folder,
  /autograder), with the Python installation bound back where it lies under a hidden path.
- `confine` (in the runner, pid 1 of the new pid namespace): its own /proc, the working
  folder, rlimits, no capabilities, an unprivileged identity, a fresh session keyring, no new
  privileges, a scrubbed environment, death with its keeper, and last a seccomp filter
  (libseccomp, through the pyseccomp binding) that denies the system calls no exercise needs:
  the kernel keyrings, ptrace, bpf, userfaultfd, mounts and namespaces, kernel modules...

Every step that works adds a token to the isolation list; a step that is not available (macOS,
a container without namespaces) is skipped, and its token is missing from the list.
"""

from __future__ import annotations

import ctypes
import errno as _errno
import os
import resource
import signal
import stat
import sys

try:  # loaded in the warm worker (it runs ldconfig to find libseccomp), used in each child
    import pyseccomp
except Exception:  # not installed, or no libseccomp on this system: reported as a missing token
    pyseccomp = None

# System calls the exercises never make, denied with EPERM in the child. The keyring calls are
# how two children run as the same user could pass notes (the user keyring is per uid); the
# rest reach the kernel's attack surface or another process.
DENIED_SYSCALLS = (
    "add_key",
    "keyctl",
    "request_key",  # kernel keyrings
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_by_handle_at",
    "name_to_handle_at",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "personality",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "vhangup",
)

# What a child may create or name is an allow-list. OBJECT_CALLS are the system calls that create a
# kernel object, or name one by a name other processes can use too; of them a child may make only
# ALLOWED_OBJECT_CALLS, objects private to its own processes (a pipe, an eventfd, an epoll, a timer,
# a signalfd, a memfd, a pidfd of its own pid namespace), and sockets only of ALLOWED_SOCKET_FAMILIES
# (AF_UNIX: socketpair, and abstract names, which are per network namespace). Everything else of
# OBJECT_CALLS fails: inotify and fanotify (they watch the read-only files bound into every child),
# file locks and leases and dnotify (fcntl's commands in REFUSED_FCNTL, flock: a lock on a shared
# file is a signal another child reads), POSIX message queues and System V IPC (per IPC namespace
# already; refused all the same), keyrings, and the rest of DENIED_SYSCALLS.
ALLOWED_OBJECT_CALLS = frozenset(
    {
        "pipe",
        "pipe2",
        "eventfd",
        "eventfd2",
        "epoll_create",
        "epoll_create1",
        "timerfd_create",
        "signalfd",
        "signalfd4",
        "memfd_create",
        "pidfd_open",
        "socket",  # of ALLOWED_SOCKET_FAMILIES only
        "socketpair",  # of ALLOWED_SOCKET_FAMILIES only
        "fcntl",  # but REFUSED_FCNTL
    }
)
OBJECT_CALLS = ALLOWED_OBJECT_CALLS | {
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    "flock",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    "shmget",
    "shmat",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "memfd_secret",
    "add_key",
    "keyctl",
    "request_key",
    "userfaultfd",
    "perf_event_open",
    "bpf",
    "io_uring_setup",
    "open_by_handle_at",
    "name_to_handle_at",
    "fsopen",
    "open_tree",
}
REFUSED_OBJECT_CALLS = tuple(sorted(OBJECT_CALLS - ALLOWED_OBJECT_CALLS))
ALLOWED_SOCKET_FAMILIES = (1,)  # AF_UNIX
# fcntl commands refused: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW (locks),
# F_SETLEASE, F_GETLEASE (leases), F_NOTIFY (dnotify: directory change notices)
REFUSED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
KEYCTL_JOIN_SESSION_KEYRING = 1
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

CLONE_NEWCGROUP = 0x02000000
NAMESPACE_FLAGS = (CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP)
_CLONE_FLAGS_ARGUMENT = {"x86_64": 0, "aarch64": 0}  # which argument of clone(2) holds the flags
_filtered_clone: list[bool] = []  # set once the filter refuses clone's namespace flags
_filtered_objects: list[bool] = []  # set once the filter holds the allow-list of kernel objects

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18

PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38

NOBODY = 65534  # uid and gid of "nobody" on Linux; see nobody_ids() elsewhere


def nobody_ids() -> tuple[int, int]:
    """(uid, gid) of the unprivileged user the child becomes when the grader is root."""
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return NOBODY, NOBODY


SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/proc", "/sys", "/tmp", "/var")

_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(libc().unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(libc().mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def prctl(option: int, arg: int) -> None:
    _check(libc().prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)), "prctl")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _is_under(path: str, ancestor: str) -> bool:
    return path == ancestor or path.startswith(ancestor.rstrip("/") + "/")


# ---- phase 1: the keeper --------------------------------------------------------------------


def enter_namespaces(spec: dict) -> tuple[list[str], bool]:
    """Enter new namespaces and build the private filesystem view. Returns the isolation tokens
    and whether a new pid namespace awaits the next fork."""
    if not sys.platform.startswith("linux") or not spec.get("namespaces", True):
        return [], False
    tokens: list[str] = []
    if os.geteuid() != 0:
        uid, gid = os.geteuid(), os.getegid()
        try:
            unshare(CLONE_NEWUSER)
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"0 {uid} 1")
            _write("/proc/self/gid_map", f"0 {gid} 1")
            tokens.append("user-namespace")
        except OSError:
            return tokens, False
    for flag, token in (
        (CLONE_NEWNS, "mount-namespace"),
        (CLONE_NEWNET, "network-namespace"),
        (CLONE_NEWIPC, "ipc-namespace"),
        (CLONE_NEWUTS, "uts-namespace"),
        (CLONE_NEWPID, "pid-namespace"),
    ):
        try:
            unshare(flag)
            tokens.append(token)
        except OSError:
            pass
    if "mount-namespace" in tokens:
        try:
            if not spec.get("allow_list", True) or not allow_list_root(spec, tokens):
                private_filesystem(spec, tokens)
        except OSError as exc:  # partly done: the READABLE probes will say what is still visible
            tokens.append(f"private-filesystem-incomplete:{exc.strerror}")
    return tokens, "pid-namespace" in tokens


# What the child's root holds, read-only, besides the Python installation (Limits-independent):
# the operating system's programs and libraries, its configuration, the few device nodes a
# program uses, the CPU topology numerical libraries read. Nothing else of the host exists there.
ALLOWED = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/sys/devices/system")
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
MNT_DETACH = 2
NEW_ROOT = "/tmp"  # where the new root is assembled (a fresh tmpfs over it), before pivot_root


def allow_list_root(spec: dict, tokens: list[str]) -> bool:
    """Build the child's filesystem by allow-list: a fresh tmpfs as its root holding read-only
    bind mounts of ALLOWED and of the Python installation (the course's packages inside it
    covered), a /dev of a few device nodes and a devpts of its own, /proc, and fresh tmpfs on
    /tmp, /var/tmp, /dev/shm; then pivot_root into it. Whatever else the host has, or creates
    later (a new folder under /var, a checkout anywhere), does not exist for the child.
    False (nothing changed) where this cannot be done; the cover-by-deny-list view is then used."""
    number = SYS_PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        return False
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    exposed = sorted({os.path.realpath(p) for p in spec["expose"] if os.path.isdir(p)})
    sources: list[tuple[str, str, int | str]] = []  # (path in the child, "dir"|"file"|"link", fd or target)
    try:
        for path in (*ALLOWED, *exposed):
            if any(_is_under(path, kept) for kept, kind, _ in sources if kind == "dir"):
                continue  # inside a folder already bound (site-packages inside the prefix)
            if os.path.islink(path) and path.count("/") == 1:
                sources.append((path, "link", os.readlink(path)))  # /bin -> usr/bin
            elif os.path.isdir(path):
                real = os.path.realpath(path)
                sources.append((path, "dir", os.open(real, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)))
        devices = [
            (f"/dev/{name}", os.open(f"/dev/{name}", os.O_PATH | os.O_CLOEXEC))
            for name in DEVICES
            if os.path.exists(f"/dev/{name}")
        ]
        proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        _close_handles(sources, [], None)
        raise
    requested = sorted({os.path.realpath(p) for p in spec["hide"] if p})
    absent = [p for p in requested if os.path.lexists(p) and not any(_is_under(p, e) for e in exposed)]
    new = NEW_ROOT
    try:
        mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    except OSError:
        _close_handles(sources, devices, proc)
        return False
    try:
        old_mask = os.umask(0o022)
        for path, kind, handle in sources:
            target = new + path
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            if kind == "link":
                os.symlink(str(handle), target)
                continue
            os.makedirs(target, mode=0o755, exist_ok=True)
            mount(f"/proc/self/fd/{handle}", target, None, MS_BIND | MS_REC)
        os.makedirs(new + "/dev", mode=0o755)
        mount("tmpfs", new + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
        for path, handle in devices:
            open(new + path, "w").close()
            mount(f"/proc/self/fd/{handle}", new + path, None, MS_BIND)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                             ("stderr", "/proc/self/fd/2")):  # fmt: skip
            os.symlink(target, f"{new}/dev/{name}")
        for folder in ("/dev/shm", "/dev/pts", "/proc", "/tmp", "/var/tmp"):
            os.makedirs(new + folder, mode=0o755, exist_ok=True)
        open(new + "/dev/ptmx", "w").close()  # the devpts instance's ptmx is bound over it
        mount(f"/proc/self/fd/{proc}", new + "/proc", None, MS_BIND | MS_REC)
        hidden = _cover_inside(spec["hide"], [p for p, kind, _ in sources if kind == "dir"], new)
        os.umask(old_mask)
        _close_handles(sources, devices, proc)
        os.chdir(new)
        _check(libc().syscall(ctypes.c_long(number), b".", b"."), "pivot_root")
        _check(libc().umount2(b".", MNT_DETACH), "umount the old root")
        os.chdir("/")
    except OSError:
        try:
            libc().umount2(new.encode(), MNT_DETACH)
        except OSError:
            pass
        raise
    tokens.append("allow-list-root")
    if _read_only_tree():
        tokens.append("read-only-root")
    size_mb = max(1, int(spec["limits"]["file_size_mb"]))
    for tmp in ("/tmp", "/var/tmp", "/dev/shm"):
        mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_mb}m,mode=1777")
    tokens.append("private-tmp")
    _private_devpts(tokens)
    for path in requested:  # absent from the child, or covered where inside what it sees
        if path in hidden or path in absent:
            tokens.append(f"hidden:{path}")
    return True


def _cover_inside(requested: list[str], bound: list[str], new: str) -> set[str]:
    """Cover (in the new root) every requested hidden path lying inside a bound folder: an
    empty read-only tmpfs over a folder, /dev/null over a file. Returns those paths."""
    covered: set[str] = set()
    for path in sorted({os.path.realpath(p) for p in requested if p}, key=lambda p: (p.count("/"), p)):
        inside = [b for b in bound if _is_under(path, b) and path != b]
        if not inside or any(_is_under(path, c) for c in covered):
            continue
        target = new + path
        if os.path.isdir(target):
            mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k,mode=0755")
        elif os.path.isfile(target):
            mount("/dev/null", target, None, MS_BIND)
        else:
            continue
        covered.add(path)
    return covered


def _close_handles(sources: list, devices: list, proc: int | None) -> None:
    for _, kind, handle in sources:
        if kind == "dir":
            os.close(int(handle))
    for _, handle in devices:
        os.close(handle)
    if proc is not None:
        os.close(proc)


def private_filesystem(spec: dict, tokens: list[str]) -> None:
    """Fresh tmpfs on the shared temp folders, empty tmpfs over hidden folders, Python bound
    back, then the hidden paths inside what was bound back (the course in site-packages) and
    hidden files (a gradebook in /var) covered too: folders by an empty tmpfs, files by /dev/null."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    read_only = _read_only_tree()  # only the tmpfs mounts made below stay writable
    exposed = sorted({os.path.realpath(p) for p in spec["expose"] if os.path.isdir(p)})
    hidden, hidden_files = _paths_to_hide(spec["hide"], exposed)
    early = [h for h in hidden if not any(_is_under(h, e) for e in exposed)]
    late = [h for h in hidden if h not in early]
    # Keep a handle on each exposed folder that is about to be covered, to bind it back after.
    keep: dict[str, int] = {}
    for path in exposed:
        if any(_is_under(path, h) for h in early + ["/tmp", "/var/tmp", "/dev/shm"]):
            if not any(_is_under(path, other) and path != other for other in keep):
                keep[path] = os.open(path, os.O_PATH | os.O_DIRECTORY)
    if read_only:
        tokens.append("read-only-root")
    size_mb = max(1, int(spec["limits"]["file_size_mb"]))
    for tmp in ("/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(tmp):
            mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_mb}m,mode=1777")
    tokens.append("private-tmp")
    _private_devpts(tokens)
    covered = [path for path in early if _cover_folder(path, tokens)]
    for path, fd in sorted(keep.items()):
        os.makedirs(path, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    covered += [path for path in late if _cover_folder(path, tokens)]
    for path in covered:  # read-only once the folders Python needs are bound back into them
        try:
            mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=256k,mode=0755")
        except OSError:
            pass
    for path in hidden_files:
        try:
            mount("/dev/null", path, None, MS_BIND)
            mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            continue  # the READABLE probe says so if it stays readable
        tokens.append(f"hidden:{path}")


def _private_devpts(tokens: list[str]) -> None:
    """A devpts instance of the child's own on /dev/pts (its /dev/ptmx the instance's): a pty
    one child opens does not exist for any other child, nor does any pty of the host. Where
    that cannot be mounted, /dev/ptmx is covered (no pty at all) and the /dev/pts of the host
    by an empty folder."""
    if not os.path.isdir("/dev/pts"):
        return
    try:
        mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0600")
        mount("/dev/pts/ptmx", "/dev/ptmx", None, MS_BIND)
        tokens.append("private-devpts")
        return
    except OSError:
        pass
    try:
        mount("tmpfs", "/dev/pts", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0755")
        if os.path.exists("/dev/ptmx"):
            mount("/dev/null", "/dev/ptmx", None, MS_BIND)
            mount(None, "/dev/ptmx", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        tokens.append("no-pty")
    except OSError:
        pass


def _cover_folder(path: str, tokens: list[str]) -> bool:
    if not os.path.isdir(path):
        return False
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=256k,mode=0755")
    tokens.append(f"hidden:{path}")
    return True


MOUNT_OPTIONS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": 1024,
    "nodiratime": 2048,
    "relatime": 1 << 21,
    "strictatime": 1 << 24,
}


def _read_only_tree() -> bool:
    """Make every mount of this (new) mount namespace read-only, keeping each mount's own flags
    (a user namespace may not clear nosuid/nodev/noexec of a mount it inherited)."""
    with open("/proc/self/mountinfo") as info:
        entries = [line.split() for line in info]
    points = {}
    for fields in entries:  # the last entry for a path is the one on top
        points[fields[4].encode().decode("unicode_escape")] = fields[5].split(",")
    complete = True
    for point, options in sorted(points.items()):
        if point.startswith("/proc"):
            continue
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY
        for option in options:
            flags |= MOUNT_OPTIONS.get(option, 0)
        try:
            mount(None, point, None, flags)
        except OSError:
            complete = complete and point != "/"
            if point == "/":
                return False
    return complete


PRIVATE_TEMP = ("/tmp", "/var/tmp", "/dev/shm")  # each child gets its own, empty


def _paths_to_hide(requested: list[str], exposed: list[str]) -> tuple[list[str], list[str]]:
    """(folders, files) to cover. Folders: the requested ones plus every folder above an exposed
    path that others cannot enter (Python under /root), minus system folders; outermost first,
    nested ones dropped unless they lie inside an exposed folder (bound back over the outer one).
    A requested file is hidden with its whole folder where that folder may be covered (so files
    created there later, such as a gradebook's -wal, are hidden too), else on its own."""
    candidates: set[str] = set()
    files: set[str] = set()
    for requested_path in requested:
        if not requested_path:
            continue
        real = os.path.realpath(requested_path)
        if any(_is_under(real, tmp) for tmp in PRIVATE_TEMP) and not any(_is_under(real, e) for e in exposed):
            continue  # the child's private tmpfs covers it (unless bound back: a venv in /tmp)
        if os.path.isdir(real):
            candidates.add(real)
            continue
        parent = os.path.dirname(real)
        if _may_cover(parent, exposed):
            candidates.add(parent)
        elif os.path.isfile(real):
            files.add(real)
    for path in exposed:
        parts = path.strip("/").split("/")
        for depth in range(1, len(parts)):
            ancestor = "/" + "/".join(parts[:depth])
            try:
                if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                    candidates.add(ancestor)
            except OSError:
                pass
    safe: list[str] = []
    for path in sorted(candidates, key=lambda p: (p.count("/"), p)):
        inside_exposed = any(_is_under(path, e) for e in exposed)
        if (
            path == "/"
            or any(_is_under(s, path) for s in SYSTEM_DIRS)
            or (_is_under(path, "/tmp") and not inside_exposed)
        ):
            continue
        if path in exposed:
            continue
        if not inside_exposed and any(_is_under(path, outer) for outer in safe):
            continue
        if any(_is_under(e, path) for e in exposed) and inside_exposed:
            continue  # would cover Python itself
        safe.append(path)
    hidden_files = sorted(
        f
        for f in files
        if not any(_is_under(f, folder) for folder in safe if not any(_is_under(e, folder) for e in exposed))
    )
    return safe, hidden_files


def _may_cover(folder: str, exposed: list[str]) -> bool:
    """Whether an empty tmpfs may replace `folder` in the child: not /, not a system folder or
    one above it, not a folder holding (or above) the Python installation."""
    if folder in ("", "/") or any(_is_under(s, folder) for s in SYSTEM_DIRS):
        return False
    return not any(_is_under(e, folder) for e in exposed)


# ---- phase 2: the runner --------------------------------------------------------------------


def confine(spec: dict, tokens: list[str], sock_fd: int, out_fd: int) -> int:
    """Confine the current process; returns the fd number of the socket afterwards."""
    limits = spec["limits"]
    linux = sys.platform.startswith("linux")
    if "pid-namespace" in tokens and "mount-namespace" in tokens:
        try:
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            tokens.append("private-proc")
        except OSError:
            pass
    workdir = spec["workdir"]
    if "private-tmp" in tokens:  # whatever the grader's temp folder, use the private /tmp
        workdir = os.path.join("/tmp", os.path.basename(workdir))
    os.mkdir(workdir, 0o700)  # a fresh name: fails rather than reuse what exists
    as_root = os.geteuid() == 0 and "user-namespace" not in tokens
    uid, gid = nobody_ids()
    own_uid = spec.get("uid")
    if type(own_uid) is int and own_uid > 0:  # one of its own, no other child has it meanwhile
        uid = gid = own_uid
    if as_root:
        os.chown(workdir, uid, gid)
    os.chmod(workdir, 0o700)
    os.chdir(workdir)
    tokens.append("empty-workdir")

    sock_fd = _standard_fds(sock_fd, out_fd)
    _set_rlimits(limits)
    tokens.append("rlimits")
    if linux:
        _drop_capabilities()
    if as_root:
        os.setgroups([])
        if hasattr(os, "setresuid"):
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
        else:  # macOS: setgid/setuid as root set real, effective and saved ids
            os.setgid(gid)
            os.setuid(uid)
        tokens.append("unprivileged-user:own-uid" if uid == own_uid else "unprivileged-user:nobody")
    elif "user-namespace" in tokens:
        tokens.append("unprivileged-user:own-namespace")
    if linux and _clear_capabilities():
        tokens.append("no-capabilities")
    if linux:
        try:
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            tokens.append("no-new-privileges")
        except OSError:
            pass
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the identity change, which clears it
    _scrub_environment(workdir)
    tokens.append("scrubbed-environment")
    if linux and _new_session_keyring():
        tokens.append("own-session-keyring")
    for path in spec.get("probes", []):
        if _readable(path):
            tokens.append(f"READABLE:{path}")
    if linux and _deny_syscalls():
        tokens.append("seccomp")
        if _filtered_clone:
            tokens.append("seccomp-clone-namespaces")
        if _filtered_objects:
            tokens.append("seccomp-object-allow-list")
    return sock_fd


def _new_session_keyring() -> bool:
    """Join a new anonymous session keyring (keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)), so the
    keyring inherited from the worker is not reachable, before seccomp shuts keyctl off."""
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return False
    result = libc().syscall(ctypes.c_long(number), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), ctypes.c_void_p(None))
    return result >= 0


def _deny_syscalls() -> bool:
    """Load the seccomp filter: everything allowed but DENIED_SYSCALLS (EPERM). Needs no new
    privileges, set just before. False when libseccomp or the kernel support is missing."""
    if pyseccomp is None:
        return False
    try:
        rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
        for name in sorted(set(DENIED_SYSCALLS) | set(REFUSED_OBJECT_CALLS)):
            try:
                rules.add_rule(pyseccomp.ERRNO(_errno.EPERM), name)
            except (OSError, ValueError, RuntimeError):  # a call this kernel/architecture does not have
                pass
        _allow_listed_objects(rules)
        _filtered_objects[:] = [True]
        # clone with any namespace flag fails with EPERM (one rule per flag: rules of the same
        # action are alternatives); fork and threads (clone without them) work. clone3 passes
        # its flags in memory a filter cannot read: it fails with ENOSYS, so glibc falls back
        # to clone, filtered here.
        if _CLONE_FLAGS_ARGUMENT.get(os.uname().machine) == 0:
            for flag in NAMESPACE_FLAGS:
                rules.add_rule(
                    pyseccomp.ERRNO(_errno.EPERM), "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag)
                )
            try:
                rules.add_rule(pyseccomp.ERRNO(_errno.ENOSYS), "clone3")
            except (OSError, ValueError, RuntimeError):
                pass
            _filtered_clone[:] = [True]
        rules.load()
        return True
    except (OSError, ValueError, RuntimeError):
        return False


def _allow_listed_objects(rules) -> None:
    """The argument rules of ALLOWED_OBJECT_CALLS: a socket or socketpair of a family other than
    ALLOWED_SOCKET_FAMILIES fails with EAFNOSUPPORT (as on a kernel without that family), an fcntl
    command of REFUSED_FCNTL with ENOLCK. (One family allowed: "not equal" is the allow-list.)"""
    (family,) = ALLOWED_SOCKET_FAMILIES
    for name in ("socket", "socketpair"):
        rules.add_rule(pyseccomp.ERRNO(_errno.EAFNOSUPPORT), name, pyseccomp.Arg(0, pyseccomp.NE, family))
    for command in REFUSED_FCNTL:
        for name in ("fcntl", "fcntl64"):
            try:
                rules.add_rule(pyseccomp.ERRNO(_errno.ENOLCK), name, pyseccomp.Arg(1, pyseccomp.EQ, command))
            except (OSError, ValueError, RuntimeError):  # fcntl64: 32-bit architectures only
                pass


def _standard_fds(sock_fd: int, out_fd: int) -> int:
    """stdin from /dev/null, stdout and stderr into the output pipe, the socket on fd 3,
    every other descriptor closed."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.dup2(sock_fd, 3)
    os.closerange(4, 65536)
    return 3


def _set_rlimits(limits: dict) -> None:
    vm_kb = 0
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    vm_kb = int(line.split()[1])
    except OSError:
        pass
    address_space = vm_kb * 1024 + int(limits["memory_mb"]) * 2**20
    cpu = int(limits["cpu_seconds"])
    settings = [
        (resource.RLIMIT_CPU, (cpu, cpu)),  # SIGKILL at the limit (pid 1 ignores SIGXCPU)
        (resource.RLIMIT_FSIZE, (int(limits["file_size_mb"]) * 2**20,) * 2),
        (resource.RLIMIT_NOFILE, (int(limits["open_files"]),) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (int(limits["processes"]),) * 2),
    ]
    if vm_kb:
        settings.append((resource.RLIMIT_AS, (address_space, address_space)))
    for which, value in settings:
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """Empty the capability bounding set (so no exec can regain root powers)."""
    for cap in range(64):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError:
            break


def _clear_capabilities() -> bool:
    """Clear the effective, permitted and inheritable capability sets (capset v3)."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    return libc().capset(ctypes.byref(header), data) == 0


def _scrub_environment(workdir: str) -> None:
    os.environ.clear()
    os.environ.update(
        {
            "PATH": "/usr/bin:/bin",
            "HOME": workdir,
            "TMPDIR": workdir,
            "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
    )


def _readable(path: str) -> bool:
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path, "rb") as handle:
            handle.read(1)
        return True
    except OSError:
        return False
