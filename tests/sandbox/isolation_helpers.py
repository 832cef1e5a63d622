"""Helpers shared by the sandbox tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID, with CLONE_NEWUSER first when not root: what the
# sandbox asks of the kernel (grader.sandbox.isolation.enter_namespaces).
_PROBE = """
import ctypes, os, sys
flags = 0x00020000 | 0x40000000 | 0x20000000
if os.geteuid() != 0:
    flags |= 0x10000000
sys.exit(0 if ctypes.CDLL(None, use_errno=True).unshare(flags) == 0 else 1)
"""


def machine_allows_namespaces() -> bool:
    """Whether this machine lets a process make new mount, network and pid namespaces: probed with
    unshare(2) in a throwaway interpreter, apart from the sandbox's code, so that a sandbox that
    stops isolating fails its tests instead of skipping them."""
    if not sys.platform.startswith("linux"):
        return False
    return subprocess.run([sys.executable, "-c", _PROBE], capture_output=True).returncode == 0


needs_namespaces = pytest.mark.skipif(
    not machine_allows_namespaces(),
    reason="this machine allows no new mount/network/pid namespaces (unshare(2) refused outside the sandbox)",
)
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="the child drops to the user nobody only when the grader runs as root",
)


def covering_mounts(isolation: list[str], path: Path) -> list[Path]:
    """The folders whose fresh tmpfs in the child covers `path`: `hidden:<folder>` mounts, and
    the private /tmp and /var/tmp where a checkout lies under them."""
    covers = [Path(t.split(":", 1)[1]) for t in isolation if t.startswith("hidden:")]
    if "private-tmp" in isolation:
        covers += [Path("/tmp"), Path("/var/tmp")]
    return [c for c in covers if path == c or c in path.parents]
