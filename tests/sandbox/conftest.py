"""One warm worker for the whole test session; small limits so that limit hits end fast."""

from __future__ import annotations

import textwrap

import pytest

from grader.sandbox import Limits, Sandbox
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)

FAST = Limits(
    call_seconds=2.0,
    import_seconds=3.0,
    cpu_seconds=4,
    memory_mb=300,
    output_kb=16,
    file_size_mb=1,
    processes=16,
    max_restarts=3,
)


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox(course=FIRST_COURSE, limits=FAST) as box:
        yield box


@pytest.fixture(scope="session")
def sandbox_zh():
    with Sandbox(course=FIRST_COURSE, limits=FAST, lang="zh") as box:
        yield box


@pytest.fixture
def load(sandbox):
    """load(source) -> a Candidate for dedented `source`, closed after the test."""
    opened = []

    def _load(source: str, filename: str = "submission.py", **limits):
        limits_override = Limits(**{**FAST.as_dict(), **limits}) if limits else None
        candidate = sandbox.load(textwrap.dedent(source), filename, limits=limits_override)
        opened.append(candidate)
        return candidate

    yield _load
    for candidate in opened:
        candidate.close()
