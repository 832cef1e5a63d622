"""Submissions of the fourth red-team pass (issue 35): children that garble their own replies,
return values the comparisons choke on, reach a classmate through kernel objects, kill their own
keeper, or take CPU from a neighbour being timed."""

from __future__ import annotations

import textwrap


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip()


# What each garbler writes on the grader's socket from the import, right behind the runtime's
# "ready": a header announcing a frame over every cap, a well-sized frame of bytes that are not
# JSON, half a header and then the socket closed (an early close), a JSON frame of a list.
GARBAGE = {
    "huge-header": "sock.sendall(b'\\xff' * 8)",
    "not-json": "sock.sendall(struct.pack('>II', 5, 0) + b'\\x00{]]x')",
    "half-then-close": "sock.sendall(b'\\x00\\x00'); os.close(fd)",
    "json-list": "sock.sendall(struct.pack('>II', 2, 0) + b'[]')",
}


def garbler(kind: str) -> str:
    """Writes GARBAGE[kind] on every socket of the child (the grader's is one of them), then
    defines an honest-looking `relative_positions`."""
    return _source(f"""
        import os, socket, stat, struct
        for fd in range(3, 64):
            try:
                if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                    continue
                sock = socket.socket(fileno=os.dup(fd))
                {GARBAGE[kind]}
            except OSError:
                pass
        import torch
        def relative_positions(seq_len):
            idx = torch.arange(seq_len)
            return idx[None, :] - idx[:, None]
    """)


# Each function tries to create or name one family of kernel objects and returns "ok" or the
# errno's name; the refused families must give an error, the allowed ones "ok".
KERNEL_OBJECTS = _source("""
    import ctypes, errno, fcntl, os, socket, sys
    libc = ctypes.CDLL(None, use_errno=True)

    def _errno_name(number):
        return errno.errorcode.get(number, str(number))

    def _sock(family, kind=socket.SOCK_STREAM):
        try:
            socket.socket(family, kind).close()
            return "ok"
        except OSError as exc:
            return _errno_name(exc.errno)

    def _libc(name, *args):
        result = getattr(libc, name)(*args)
        return "ok" if result >= 0 else _errno_name(ctypes.get_errno())

    def _shared_file():  # a read-only file bound into every child
        return os.open(os.path.realpath(sys.executable), os.O_RDONLY)

    def vsock():
        return _sock(socket.AF_VSOCK)

    def inet():
        return _sock(socket.AF_INET)

    def inet6():
        return _sock(socket.AF_INET6, socket.SOCK_DGRAM)

    def netlink():
        return _sock(socket.AF_NETLINK, socket.SOCK_RAW)

    def packet():
        return _sock(socket.AF_PACKET, socket.SOCK_RAW)

    def inet_pair():
        try:
            socket.socketpair(socket.AF_INET).close()
            return "ok"
        except OSError as exc:
            return _errno_name(exc.errno)

    def inotify():
        return _libc("inotify_init")

    def inotify1():
        return _libc("inotify_init1", 0)

    def fanotify():
        return _libc("fanotify_init", 0, 0)

    def flock():
        fd = _shared_file()
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return "ok"
        except OSError as exc:
            return _errno_name(exc.errno)
        finally:
            os.close(fd)

    def posix_lock():
        fd = _shared_file()
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return "ok"
        except OSError as exc:
            return _errno_name(exc.errno)
        finally:
            os.close(fd)

    def dnotify():
        fd = os.open("/usr", os.O_RDONLY)
        try:
            fcntl.fcntl(fd, fcntl.F_NOTIFY, fcntl.DN_ACCESS)
            return "ok"
        except OSError as exc:
            return _errno_name(exc.errno)
        finally:
            os.close(fd)

    def message_queue():
        librt = ctypes.CDLL("librt.so.1", use_errno=True)
        result = librt.mq_open(b"/coursegen-notes", os.O_CREAT | os.O_RDWR, 0o600, None)
        return "ok" if result >= 0 else _errno_name(ctypes.get_errno())

    def sysv_shared_memory():
        return _libc("shmget", 0, 4096, 0o1000 | 0o600)

    def sysv_semaphore():
        return _libc("semget", 0, 1, 0o1000 | 0o600)

    def sysv_message():
        return _libc("msgget", 0, 0o1000 | 0o600)

    # allowed: private to the child's own processes
    def unix_pair():
        a, b = socket.socketpair()
        a.sendall(b"x")
        ok = b.recv(1) == b"x"
        a.close(); b.close()
        return "ok" if ok else "broken"

    def pipe():
        r, w = os.pipe()
        os.close(r); os.close(w)
        return "ok"

    def memfd():
        fd = os.memfd_create("private")
        os.close(fd)
        return "ok"

    def private_lock_free_file():
        with open("notes.txt", "w") as handle:  # its own files still work
            handle.write("x")
        return "ok"
""")
REFUSED_FAMILIES = (
    "vsock",
    "inet",
    "inet6",
    "netlink",
    "packet",
    "inet_pair",
    "inotify",
    "inotify1",
    "fanotify",
    "flock",
    "posix_lock",
    "dnotify",
    "message_queue",
    "sysv_shared_memory",
    "sysv_semaphore",
    "sysv_message",
)
ALLOWED_FAMILIES = ("unix_pair", "pipe", "memfd", "private_lock_free_file")


def memory_filler(marker: str) -> str:
    """Named `marker` (PR_SET_NAME), with a sleeping grandchild of the same name, neither dying
    with its parent (no PR_SET_PDEATHSIG); `fill()` writes
    memfd pages no process maps (each file under RLIMIT_FSIZE, as many as it takes) until the
    child's memory limit stops it."""
    return _source(f"""
        import ctypes, os, time
        libc = ctypes.CDLL(None)
        libc.prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG: none (the runner outlives a dead keeper)
        libc.prctl(15, {marker.encode()!r}, 0, 0, 0)
        if os.fork() == 0:
            libc.prctl(1, 0, 0, 0, 0)
            libc.prctl(15, {marker.encode()!r}, 0, 0, 0)
            while True:
                time.sleep(0.2)
        held = []
        def fill():
            chunk = b"x" * (1 << 20)
            while True:
                fd = os.memfd_create("pages")
                held.append(fd)
                for _ in range(15):
                    os.write(fd, chunk)
        def alive():
            return True
    """)


def busy_neighbour(count: int) -> str:
    """At import, `count` processes that spin forever, each in a session (and so a scheduling
    autogroup) of its own."""
    return _source(f"""
        import os
        for _ in range({count}):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        def relative_positions(seq_len):
            return None
    """)


# A correct, naive solution whose call needs about `seconds` of CPU time (measured in the child).
NEEDS_CPU = _source("""
    import time
    def work(seconds):
        start = time.process_time()
        spins = 0
        while time.process_time() - start < seconds:
            spins += 1
        return spins > 0
""")
