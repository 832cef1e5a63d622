"""Submissions of the third red-team pass (issue 23): children that try to outlive their grading,
to share kernel objects with another child, or to make namespaces by the back door.

Each leaves a mark the test (on the host) can look for: a process name (`/proc/<pid>/comm`, set
with PR_SET_NAME) that only the attack's processes carry.
"""

from __future__ import annotations

import textwrap


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def linger(marker: str) -> str:
    """The runner itself (pid 1 of its namespace) stays: cleared death signal, its own session,
    SIGTERM/SIGHUP ignored, os._exit and sys.exit replaced so the runtime's exit never happens."""
    return _source(f"""
        import ctypes, os, signal, sys, time
        libc = ctypes.CDLL(None)
        libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG: none
        try:
            os.setsid()
        except OSError:
            pass
        libc.prctl(15, {marker.encode()!r}, 0, 0, 0)  # PR_SET_NAME
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(number, signal.SIG_IGN)
        def _never(*args, **kwargs):
            while True:
                time.sleep(1)
        os._exit = _never
        sys.exit = _never
        def dot(a, b):
            return sum(x * y for x, y in zip(a, b))
    """)


def double_fork(marker: str, count: int = 1) -> str:
    """Background grandchildren in sessions of their own, ignoring SIGTERM, with no death signal:
    the classic daemon escape."""
    return _source(f"""
        import ctypes, os, signal, time
        libc = ctypes.CDLL(None)
        for _ in range({count}):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    libc.prctl(1, 0, 0, 0, 0)
                    libc.prctl(15, {marker.encode()!r}, 0, 0, 0)
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                    while True:
                        time.sleep(0.2)
                os._exit(0)
            os.wait()
        def dot(a, b):
            return sum(x * y for x, y in zip(a, b))
    """)


HOG_PROCESSES = _source("""
    import os, time
    children = 0
    for _ in range(64):
        try:
            if os.fork() == 0:
                os.setsid()
                while True:
                    time.sleep(1)
        except OSError:
            break
        children += 1
    def dot(a, b):
        return sum(x * y for x, y in zip(a, b))
""")

# An honest classmate that needs a few processes and threads of its own.
NEEDS_PROCESSES = _source("""
    import os, threading
    def spawn(count):
        made = 0
        pids = []
        for _ in range(count):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                os._exit(0)
            pids.append(pid)
            made += 1
        for pid in pids:
            os.waitpid(pid, 0)
        threads = [threading.Thread(target=lambda: None) for _ in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if made < count:
            raise RuntimeError(f"only {made} of {count} processes could start")
        return made
    def dot(a, b):
        return sum(x * y for x, y in zip(a, b))
""")

PTY_OPENER = _source("""
    import os
    held = []
    def open_pty():
        master, slave = os.openpty()
        held.extend([master, slave])
        return os.ttyname(slave)
    def write(text):
        os.write(held[0], text.encode())
        return True
""")

PTY_SNOOP = _source("""
    import os
    def open_pty(path):
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        return os.read(fd, 100).decode()
    def list_ptys():
        try:
            return sorted(os.listdir('/dev/pts'))
        except OSError as exc:
            return [type(exc).__name__]
""")

RAW_CLONE = _source("""
    import ctypes, os, platform
    libc = ctypes.CDLL(None, use_errno=True)
    SYS_CLONE = {"x86_64": 56, "aarch64": 220}[platform.machine()]
    SYS_CLONE3 = 435
    SIGCHLD = 17
    FLAGS = {
        "user": 0x10000000, "net": 0x40000000, "ns": 0x00020000, "pid": 0x20000000,
        "ipc": 0x08000000, "uts": 0x04000000, "cgroup": 0x02000000,
    }
    def clone(names):
        flags = SIGCHLD
        for name in names:
            flags |= FLAGS[name]
        pid = libc.syscall(ctypes.c_long(SYS_CLONE), ctypes.c_ulong(flags), ctypes.c_ulong(0),
                           ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
        if pid == 0:
            os._exit(0)
        if pid < 0:
            return -ctypes.get_errno()
        os.waitpid(pid, 0)
        return pid
    def clone3():
        args = (ctypes.c_uint64 * 11)()
        args[4] = SIGCHLD  # exit_signal
        args[0] = FLAGS["user"]
        pid = libc.syscall(ctypes.c_long(SYS_CLONE3), ctypes.byref(args), ctypes.c_size_t(88))
        if pid == 0:
            os._exit(0)
        if pid < 0:
            return -ctypes.get_errno()
        os.waitpid(pid, 0)
        return pid
    def fork_still_works():
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    def thread_still_works():
        import threading
        out = []
        t = threading.Thread(target=lambda: out.append(1))
        t.start()
        t.join()
        return out
""")

READ_LATER = _source("""
    import os
    def look(path):
        try:
            names = os.listdir(os.path.dirname(path))
        except OSError as exc:
            names = [type(exc).__name__]
        try:
            with open(path) as handle:
                return [names, handle.read()]
        except OSError as exc:
            return [names, type(exc).__name__]
""")


def processes_named(marker: str) -> list[int]:
    """Host pids of live (not zombie) processes whose name is `marker`."""
    import os

    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/comm") as handle:
                comm = handle.read().strip()
            with open(f"/proc/{name}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if comm == marker[:15] and state not in ("Z", "X"):
            found.append(int(name))
    return found


def kill_all(pids: list[int]) -> None:
    import os
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
