from __future__ import annotations

import pytest

from grader.sandbox import Limits, Sandbox
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)


def fuzz_sandbox(call_seconds: float) -> Sandbox:
    return Sandbox(
        course=FIRST_COURSE,
        limits=Limits(
            call_seconds=call_seconds,
            import_seconds=3,
            cpu_seconds=10,
            memory_mb=400,
            output_kb=16,
            file_size_mb=1,
            max_restarts=2,
        ),
    )


@pytest.fixture(scope="module")
def sandbox():
    with fuzz_sandbox(call_seconds=3) as box:
        yield box


@pytest.fixture(scope="module")
def short_call_sandbox():
    """A call may last half a second: a forged frame header leaves the grader waiting for bytes that
    never come until the call's wall backstop (3x the call limit), so each such example costs
    1.5 s here instead of 9 s; what is tested is that the wait ends in a clean error."""
    with fuzz_sandbox(call_seconds=0.5) as box:
        yield box
