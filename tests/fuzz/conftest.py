from __future__ import annotations

import pytest

from grader.sandbox import Limits, Sandbox
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(
        course=FIRST_COURSE,
        limits=Limits(
            call_seconds=3,
            import_seconds=3,
            cpu_seconds=10,
            memory_mb=400,
            output_kb=16,
            file_size_mb=1,
            max_restarts=2,
        ),
    ) as box:
        yield box
