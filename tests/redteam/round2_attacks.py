"""Attacks of red-team round 2 on the trusted side (issue 11's hardening), as batch entries.

Each builder takes (batch folder, facts) and creates files under the batch folder, which lies
on the same file system as the course (so hard links to the references can be made).
"""
from __future__ import annotations

import os
import socket
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IDENTITY_ROPE = "def apply_rope(x, positions=None, base=10000.0):\n    return x.clone()\n"
DEEP = 1_100           # folders: os.walk recursed once per level and raised RecursionError at ~1000
COPIES = 70            # rope.py files in one student's folder, each graded in full before


def build_honest(batch: Path, facts: dict) -> None:
    (batch / "honest_rope").mkdir()
    (batch / "honest_rope" / "rope.py").write_text((ROOT / "solutions" / "rope.py").read_text())


def build_hard_links(batch: Path, facts: dict) -> None:
    """Hard links (not symbolic ones) to the references: O_NOFOLLOW does not see them."""
    (batch / "hardlink_in_folder").mkdir()
    os.link(ROOT / "solutions" / "rope.py", batch / "hardlink_in_folder" / "rope.py")
    os.link(ROOT / "solutions" / "alibi.py", batch / "hardlink_top_alibi.py")


def build_deep_tree(batch: Path, facts: dict) -> None:
    """A student folder nested DEEP levels (one letter each, under PATH_MAX), a file at the bottom."""
    (batch / "deep_tree").mkdir()
    fd = os.open(batch / "deep_tree", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(DEEP):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        handle = os.open("rope.py", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(handle, IDENTITY_ROPE.encode())
        os.close(handle)
    finally:
        os.close(fd)


def build_many_copies(batch: Path, facts: dict) -> None:
    """COPIES rope.py files in sub-folders of one student's folder: each would cost a full grading."""
    for i in range(COPIES):
        folder = batch / "many_copies" / f"try{i:03d}"
        folder.mkdir(parents=True)
        (folder / "rope.py").write_text(IDENTITY_ROPE)


def build_special_files(batch: Path, facts: dict) -> None:
    """A unix socket named like a submission (opening it fails with ENXIO)."""
    (batch / "socket_named_rope").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(batch / "socket_named_rope" / "rope.py"))
    server.close()
    facts.setdefault("keep", []).append(server)


BUILDERS = (build_honest, build_hard_links, build_deep_tree, build_many_copies, build_special_files)


def remove_deep_tree(batch: Path) -> None:
    """shutil.rmtree recurses too; remove the deep folder bottom-up through descriptors."""
    top = batch / "deep_tree"
    if not top.exists():
        return
    fds = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    while "a" in os.listdir(fds[-1]):
        fds.append(os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    for name in os.listdir(fds[-1]):
        os.unlink(name, dir_fd=fds[-1])
    for parent, child in zip(reversed(fds[:-1]), reversed(fds[1:])):
        os.close(child)
        os.rmdir("a", dir_fd=parent)
    os.close(fds[0])
    os.rmdir(top)


# ---- state kept in the child across checks -------------------------------------------------------

# A correct alibi_slopes that notes every n_heads it is called with, and an alibi_bias that
# fails with those notes in its message: when a hidden check of alibi_slopes ran before the
# visible checks of alibi_bias, its inputs (every head count 1..32) showed in their feedback.
HIDDEN_INPUTS_NOTED = (ROOT / "solutions" / "alibi.py").read_text() + '''

_NOTES = []
_right_slopes = alibi_slopes


def alibi_slopes(n_heads):
    _NOTES.append(n_heads)
    return _right_slopes(n_heads)


def alibi_bias(n_heads, seq_len):
    raise ValueError("NOTED[" + ",".join(map(str, _NOTES)) + "]")
'''
VISIBLE_SLOPES_CALLS = 5     # the visible checks of alibi_slopes: one head count, then 6, 12, 24 and one more
