"""The spare keeper a worker forks ahead (grader/sandbox/worker.py, Worker.fork_keeper) waits for a
spec that may never come: when its worker ends first, the spare ends at once, with status 0 and not a
word on the terminal the worker shares with the grader's user. (In CI a `coursegen grade --format
json` once printed a spare's traceback after its JSON.) Run in a fresh interpreter, since it forks."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, socket
    from grader.sandbox import isolation, runtime, wire
    from grader.sandbox.worker import Worker

    control, _grader_end = socket.socketpair()
    worker = Worker(control, isolation, runtime, wire)
    pid, parent_end, out_read = worker.fork_keeper()
    parent_end.close()  # the worker ends without handing the spare a spec
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status))
    """
)


def test_a_spare_whose_worker_ends_first_exits_quietly():
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "0", (done.stdout, done.stderr)
        assert done.stderr == ""
