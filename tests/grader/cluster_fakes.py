"""A sandbox stand-in that kills the process grading it: the one fault a real submission should
never cause (the sandbox contains it), simulated to test the cluster's answer to a worker that a
submission keeps killing. TRUSTED test fixtures only, like grader_fakes.FakeSandbox."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

from grader_fakes import FakeSandbox

MARKER = "KILL_THE_GRADING_PROCESS"


class KillingSandbox(FakeSandbox):
    @contextmanager
    def load(self, code, filename):
        if MARKER in (code or ""):
            os.kill(os.getpid(), signal.SIGKILL)
        with super().load(code, filename) as candidate:
            yield candidate


def killing_sandbox_factory():
    return KillingSandbox()
