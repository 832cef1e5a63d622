"""An in-process stand-in for grader.sandbox.Sandbox, for the grader's unit tests only.

It executes TRUSTED test fixtures in this process (never use it for student code): the
real sandbox is exercised by the tests marked slow and by tests/sandbox.
"""

from __future__ import annotations

import types
from contextlib import contextmanager

from grader.running.trusted import TrustedCandidate


from grader.running.session import load_error_type


class FakeSandbox:
    """Sandbox(limits, lang) look-alike: load(code, filename) execs the code in a fresh module."""

    loads = 0

    def __init__(self, *args, **kwargs):
        self.closed = False

    @contextmanager
    def load(self, code, filename):
        FakeSandbox.loads += 1
        module = types.ModuleType("submission")
        try:
            exec(compile(code, filename, "exec"), module.__dict__)
        except Exception as error:  # noqa: BLE001 - becomes the load error, like the sandbox's
            try:
                problem = load_error_type()(f"{type(error).__name__}: {error}", "raised")
            except TypeError:
                problem = load_error_type()(f"{type(error).__name__}: {error}")
            raise problem from None
        yield TrustedCandidate(module)

    def close(self):
        self.closed = True


def fake_sandbox_factory():
    return FakeSandbox()


class SlowFakeSandbox(FakeSandbox):
    """A fake sandbox that takes a while per submission (to kill a batch half-way)."""

    @contextmanager
    def load(self, code, filename):
        import time

        time.sleep(0.4)
        with super().load(code, filename) as candidate:
            yield candidate


def slow_fake_sandbox_factory():
    return SlowFakeSandbox()


class BrokenSandbox(FakeSandbox):
    """A sandbox that breaks at its second submission (a grader problem, not the student's)."""

    @contextmanager
    def load(self, code, filename):
        if FakeSandbox.loads >= 1:
            raise RuntimeError("the sandbox broke")
        with super().load(code, filename) as candidate:
            yield candidate


def broken_sandbox_factory():
    return BrokenSandbox()
