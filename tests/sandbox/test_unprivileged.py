"""The instructor's-laptop path: the grader runs as an ordinary user, so the child isolates
itself inside a user namespace. Run here by dropping the test's root to uid 65534 first (in a
mount namespace that makes a Python living under /root reachable, as on this machine)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from isolation_helpers import covering_mounts

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux")
    or os.geteuid() != 0
    or not shutil.which("unshare")
    or not shutil.which("setpriv"),
    reason="needs Linux, root, unshare and setpriv to become an ordinary user",
)

PROBE = textwrap.dedent("""
    import json, sys
    from grader.course import Course
    from grader.sandbox import Sandbox, CandidateError
    CODE = '''
    import ctypes, os
    def ids():
        return [os.getuid(), os.getpid()]
    def read(path):
        return open(path).read()[:10]
    def unmount(path):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.umount2(path.encode(), 2) != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return "unmounted"
    '''
    out = {}
    with Sandbox(course=Course.load(sys.argv[1])) as sandbox:
        out["isolation"] = sandbox.isolation
        with sandbox.load(CODE) as candidate:
            out["ids"] = candidate.ids()
            for key, call in (("read", lambda: candidate.read(sys.argv[1] + "/solutions/rope.py")),
                              ("unmount", lambda: candidate.unmount(sys.argv[1]))):
                try:
                    out[key] = call()
                except CandidateError as error:
                    out[key] = "error: " + str(error)
    print(json.dumps(out))
""")


def first_closed_ancestor(path: str) -> str | None:
    parts = Path(path).resolve().parts
    for depth in range(2, len(parts)):
        ancestor = Path(*parts[:depth])
        if not ancestor.stat().st_mode & 0o001:
            return str(ancestor)
    return None


@pytest.fixture
def open_folder():
    """A folder uid 65534 can enter (pytest's tmp_path lives under a 0700 folder)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="coursegen-unprivileged-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_ordinary_user_gets_a_user_namespace_and_the_same_protection(open_folder):
    closed_above_repo = [p for p in ROOT.resolve().parents if not os.stat(p).st_mode & 0o001]
    if closed_above_repo:
        pytest.skip(
            f"the repository lies under {closed_above_repo[0]}, closed to other users, "
            "so uid 65534 could not import the grader"
        )
    tmp_path = open_folder
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 65534, 65534)
    (tmp_path / "probe.py").write_text(PROBE)
    # Make the Python installation reachable for uid 65534, as it would be on a laptop: a virtual
    # environment's own folder (sys.prefix) and the interpreter it runs (sys.base_prefix).
    inner_by_closed: dict[str, set[str]] = {}
    for prefix in (sys.prefix, sys.base_prefix):
        closed = first_closed_ancestor(prefix)
        if closed:
            inner_by_closed.setdefault(closed, set()).add(Path(prefix).resolve().relative_to(closed).parts[0])
    reopen = ""
    for closed, inners in sorted(inner_by_closed.items()):
        stages = {inner: f"{tmp_path}/stage-{len(reopen)}-{n}" for n, inner in enumerate(sorted(inners))}
        reopen += "".join(f"mkdir -p {s} && mount --bind {closed}/{i} {s} && " for i, s in stages.items())
        reopen += f"mount -t tmpfs -o mode=755 tmpfs {closed} && "
        reopen += "".join(f"mkdir {closed}/{i} && mount --move {s} {closed}/{i} && " for i, s in stages.items())
    script = (
        f"mount --make-rprivate / && {reopen}cd {tmp_path} && "
        f"exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME={home} "
        f"{sys.executable} {tmp_path}/probe.py {ROOT}"
    )
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    if "user-namespace" not in result.stdout and result.returncode == 0:
        pytest.skip("unprivileged user namespaces are not allowed here")
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"user-namespace", "pid-namespace", "network-namespace", "no-capabilities"} <= set(out["isolation"])
    assert covering_mounts(out["isolation"], ROOT)  # an empty tmpfs over the project or a folder above it
    assert out["ids"] == [0, 1]  # root of its own namespace only
    assert out["read"].startswith("error: ") and "FileNotFoundError" in out["read"]
    assert out["unmount"].startswith("error: ")  # no capabilities left to undo the hiding
