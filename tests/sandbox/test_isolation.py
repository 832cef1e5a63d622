"""What the child can and cannot reach. Tests that need a namespace are marked `needs_namespaces`:
they skip only where the machine itself refuses namespaces (probed apart from the sandbox); where
it allows them, an isolation missing from `sandbox.isolation` is a failure."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from grader.sandbox import CandidateError
from isolation_helpers import covering_mounts, needs_namespaces, needs_root
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)
from tests.nonempty import nonempty

ROOT = Path(__file__).resolve().parents[2]


def assert_in_force(sandbox, token: str) -> None:
    assert token in sandbox.isolation, f"{token} is not in force: {sandbox.isolation}"


def cover_of(sandbox, path: Path) -> Path:
    """The folder whose empty cover hides `path` from the child (`path` or a folder above it)."""
    covers = covering_mounts(sandbox.isolation, path)
    assert covers, f"nothing hides {path} from the child: {sandbox.isolation}"
    return covers[0]


def test_isolation_reports_what_is_in_force(sandbox):
    tokens = sandbox.isolation
    assert "rlimits" in tokens and "scrubbed-environment" in tokens and "empty-workdir" in tokens
    if sys.platform.startswith("linux") and os.geteuid() == 0:
        assert "unprivileged-user:own-uid" in tokens  # a uid of its own (grader.sandbox.containment)


def test_no_secret_path_is_readable_from_the_child(sandbox):
    assert not [t for t in sandbox.isolation if t.startswith("READABLE:")]


@needs_namespaces
def test_reference_solutions_cannot_be_read_by_path(load, sandbox):
    cover_of(sandbox, ROOT)
    candidate = load("def read(path):\n    return open(path).read()\n")
    for path in (ROOT / "solutions" / "rope.py", ROOT / "grader" / "sandbox" / "candidate.py", ROOT / "pyproject.toml"):
        with pytest.raises(CandidateError, match="FileNotFoundError|PermissionError"):
            candidate.read(str(path))


def test_project_packages_cannot_be_imported(load):
    candidate = load("import importlib\ndef imp(name):\n    importlib.import_module(name)\n    return 'imported'\n")
    for name in ("solutions", "solutions.rope", "grader", "grader.checks", "exercises", "coursegen"):
        with pytest.raises(CandidateError, match="ModuleNotFoundError"):
            candidate.imp(name)


def test_ordinary_imports_still_work(load):
    candidate = load(
        "def imp():\n    import json, fractions, decimal, encodings.idna, xml.dom.minidom, torch.nn.functional\n    return 1\n"
    )
    assert candidate.imp() == 1


def test_environment_is_scrubbed(load, monkeypatch):
    monkeypatch.setenv("COURSEGEN_SECRET", "grader-only")
    candidate = load(
        "import os\ndef env():\n    return dict(os.environ)\n"
        "def raw():\n    try:\n        return open('/proc/self/environ', 'rb').read().decode(errors='replace')\n"
        "    except OSError:\n        return ''\n"
    )
    env = candidate.env()
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    assert "COURSEGEN_SECRET" not in candidate.raw()


@needs_root
def test_child_runs_as_an_unprivileged_user(load, sandbox):
    assert_in_force(sandbox, "unprivileged-user:own-uid")
    candidate = load("import os\ndef ids():\n    return [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()]\n")
    uid, euid, gid, groups = candidate.ids()
    assert uid == euid == gid and groups == []
    assert uid >= 2**31 - 2**26 and uid < 2**32 - 1  # the reserved range, far above every account


@needs_namespaces
def test_network_is_unreachable(load, sandbox):
    assert_in_force(sandbox, "network-namespace")
    candidate = load("""
        import socket
        def connect():
            socket.create_connection(("1.1.1.1", 53), timeout=1)
        def interfaces():  # from /proc (the network namespace's view): netlink sockets are refused
            with open("/proc/self/net/dev") as table:
                return sorted(line.split(":")[0].strip() for line in table.readlines()[2:])
    """)
    with pytest.raises(CandidateError, match="OSError|unreachable"):
        candidate.connect()
    assert candidate.interfaces() == ["lo"]


@needs_namespaces
def test_child_sees_only_its_own_processes(load, sandbox):
    assert_in_force(sandbox, "private-proc")
    candidate = load(
        "import os\ndef pids():\n    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "def me():\n    return os.getpid()\n"
    )
    assert candidate.me() == 1 and candidate.pids() == [1]


def test_child_cannot_signal_the_grader(load):
    candidate = load("import os, signal\ndef kill(pid):\n    os.kill(pid, signal.SIGKILL)\n")
    with pytest.raises(CandidateError, match="ProcessLookupError|PermissionError"):
        candidate.kill(os.getpid())
    with pytest.raises(CandidateError, match="ProcessLookupError|PermissionError"):
        candidate.kill(os.getppid())


def test_working_folder_starts_empty_and_is_writable(load):
    candidate = load(
        "import os\ndef work():\n    before = os.listdir('.')\n    open('f.txt', 'w').write('x')\n"
        "    return before, os.listdir('.')\n"
    )
    assert candidate.work() == ([], ["f.txt"])


@needs_namespaces
def test_writes_to_shared_temp_folders_stay_private(load, sandbox, tmp_path):
    assert_in_force(sandbox, "private-tmp")
    target = Path("/tmp") / f"coursegen-sandbox-test-{os.getpid()}"
    candidate = load("def write(path):\n    open(path, 'w').write('pwned')\n    return 1\n")
    assert candidate.write(str(target)) == 1
    assert not target.exists()


@needs_namespaces
def test_rest_of_the_filesystem_is_read_only(load, sandbox):
    assert_in_force(sandbox, "read-only-root")
    candidate = load("def write(path):\n    open(path, 'w').write('pwned')\n")
    for path in ("/etc/coursegen-pwned", "/usr/coursegen-pwned", "/var/coursegen-pwned"):
        with pytest.raises(CandidateError, match="OSError|PermissionError|Read-only"):
            candidate.write(path)
        assert not Path(path).exists()


@needs_namespaces
def test_extra_hidden_paths_are_hidden(tmp_path):
    from grader.sandbox import Sandbox

    secret = Path.home() / ".coursegen-test-secret"  # somewhere outside /tmp, which is always private
    gradebook = tmp_path / "gradebook.sqlite"
    gradebook.write_text("scores")
    with Sandbox(course=FIRST_COURSE, hide=(str(tmp_path),)) as box:
        assert f"hidden:{tmp_path}" in box.isolation or "private-tmp" in box.isolation, box.isolation
        with box.load("def read(path):\n    return open(path).read()\n") as candidate:
            with pytest.raises(CandidateError):
                candidate.read(str(gradebook))
    assert not secret.exists()


def test_fork_bomb_is_contained_and_grader_survives(load):
    candidate = load("""
        import os, time
        def bomb():
            made = 0
            for _ in range(200):
                try:
                    if os.fork() == 0:
                        time.sleep(30)
                        os._exit(0)
                    made += 1
                except OSError:
                    break
            return made
    """)
    made = candidate.bomb()
    assert made < 16
    candidate.close()
    follow_up = load("def ok():\n    return 1\n")
    assert follow_up.ok() == 1


@needs_namespaces
def test_child_cannot_unmount_what_hides_the_project(load, sandbox):
    cover = cover_of(sandbox, ROOT)
    candidate = load("""
        import ctypes, os
        def unmount(path):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.umount2(path.encode(), 2) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    """)
    with pytest.raises(CandidateError, match="PermissionError|OSError"):
        candidate.unmount(str(cover))


def test_without_namespaces_the_reduced_isolation_is_reported():
    from grader.sandbox import Sandbox

    with Sandbox(course=FIRST_COURSE, namespaces=False) as box:
        tokens = box.isolation
        assert not [t for t in tokens if t.endswith("-namespace") or t.startswith("hidden:")]
        assert "rlimits" in tokens and "empty-workdir" in tokens
        if os.geteuid() == 0:
            assert "unprivileged-user:own-uid" in tokens
            readable = [t for t in tokens if t.startswith("READABLE:")]
            assert bool(readable) == readable_by_others(
                ROOT / "solutions"
            )  # the warning says what the child could read
        with box.load("import os\ndef ok():\n    return os.getcwd()\n") as candidate:
            assert candidate.ok().startswith("/")


def test_background_processes_die_with_the_candidate(load):
    import subprocess
    import time
    import uuid

    marker = f"coursegen-linger-{uuid.uuid4().hex[:8]}"
    # RLIMIT_NPROC counts every process of the children's uid: let earlier tests' children, which
    # are retired without waiting, finish exiting first, so this child's three forks have room
    settle = time.monotonic() + 15
    while time.monotonic() < settle and subprocess.run(["pgrep", "-u", "65534"], capture_output=True).stdout:
        time.sleep(0.1)
    candidate = load(f"""
        import os
        def linger():
            for _ in range(3):
                if os.fork() == 0:
                    os.setsid()
                    os.execv("/bin/sleep", ["{marker}", "300"])
            return 1
    """)
    assert candidate.linger() == 1

    def running() -> list[str]:
        ps = subprocess.run(["ps", "-eo", "stat,args"], capture_output=True, text=True).stdout
        return [line for line in ps.splitlines() if marker in line and not line.startswith("Z")]

    deadline = time.monotonic() + 10  # the children exec asynchronously
    while len(running()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(running()) == 3
    candidate.close()
    deadline = time.monotonic() + 10
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert running() == []


def readable_by_others(folder: Path) -> bool:
    """Whether a user who is neither owner nor group could list `folder`: it is readable and
    searchable by others, and every folder above it is searchable by others."""
    folder = folder.resolve()
    if os.stat(folder).st_mode & 0o005 != 0o005:
        return False
    return all(os.stat(parent).st_mode & 0o001 for parent in folder.parents)


@needs_namespaces
def test_other_copies_of_the_course_beside_the_project_are_hidden_too(load, sandbox):
    # Another checkout (or a backup) next to this one holds solutions/ too: the child sees no
    # folder outside the operating system and Python, so it finds nothing beside the project.
    cover_of(sandbox, ROOT)
    candidate = load("""
        import os
        def listing(path):
            try:
                return sorted(os.listdir(path))
            except OSError as exc:
                return [type(exc).__name__]
        def own_folder():
            return os.getcwd()
    """)
    seen = candidate.listing(str(ROOT.parent))
    own = Path(candidate.own_folder())
    if own.parent == ROOT.parent:  # a checkout in /tmp: the child's own empty working folder lies beside it
        seen = [name for name in seen if name != own.name]
    assert seen in ([], ["FileNotFoundError"])


def test_every_folder_at_the_root_outside_the_system_is_hidden():
    from grader.sandbox.sandbox import SYSTEM_FOLDERS, folders_outside_the_system

    hidden = folders_outside_the_system()
    assert all(os.path.isdir(p) and not os.path.islink(p) for p in nonempty(hidden))
    assert not {p.strip("/") for p in hidden} & SYSTEM_FOLDERS
    top = ROOT.resolve().parts[1]  # where this checkout lies: /work, /home, /tmp ...
    assert (f"/{top}" in hidden) == (top not in SYSTEM_FOLDERS)
