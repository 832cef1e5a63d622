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
