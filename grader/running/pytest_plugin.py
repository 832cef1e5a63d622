"""The grader's pytest plugin (`-p grader.running.pytest_plugin`): what the checks in grader/checks see.

Fixtures for the checks:
    candidate   proxy to the code under test (a sandboxed submission, or a trusted module)
    reference   the reference solutions as one namespace (runs here, in the parent)
    rng         a torch.Generator seeded from the run's secret seed and the check's id (courses with torch)
    py_rng      a random.Random seeded the same way (no torch, no numpy needed)
    np_rng      a numpy.random.Generator seeded the same way (numpy.random.default_rng)
    lang        "en" or "zh"
Markers: @pytest.mark.exercise(name) (required), @pytest.mark.points(n) (default 1),
@pytest.mark.hidden.

Developing checks (trusted code only, never student code):
    pytest -p grader.running.pytest_plugin grader/checks                          # against the references
    pytest -p grader.running.pytest_plugin grader/checks --grader-candidate=exercises
    pytest -p grader.running.pytest_plugin grader/checks --grader-candidate=mistake:dot-no-sum
    pytest -p grader.running.pytest_plugin grader/checks --grader-submission=vectors.py   # through the sandbox
    pytest -p grader.running.pytest_plugin COURSE/grader/checks --grader-root=COURSE      # a course elsewhere

The course the checks grade is the one the session was handed (grader.running.session.run_session's
`course`, kept in the config's stash); a plain pytest run names it with --grader-root (default:
the current folder).

Grading many submissions in one pytest session is grader/running/session.py (`run_session`), which
loads this plugin into that session; what the fixtures use of it is imported from there.
"""

from __future__ import annotations

import os
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from grader.running.session import _state, check_id, derive_seed
from grader.running.trusted import TrustedCandidate, reference_namespace, trusted_namespace

if TYPE_CHECKING:
    from grader.course import Course


# ---- options, markers, fixtures --------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("grader", "coursegen grader")
    group.addoption(
        "--grader-candidate",
        default=None,
        help="trusted code to check in-process: solutions (default), solutions.<module>, exercises, mistake:<id>",
    )
    group.addoption(
        "--grader-submission", default=None, help="a submission (.py or .ipynb) to grade through the sandbox"
    )
    group.addoption("--grader-seed", type=int, default=None, help="the run's seed (default: secret, random)")
    group.addoption("--grader-lang", default="en", choices=["en", "zh"], help="feedback language")
    group.addoption(
        "--grader-root", default=".", help="the course folder whose checks run (default: the current folder)"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "exercise(name): the exercise this check grades (required)")
    config.addinivalue_line("markers", "points(n): points the check is worth (default 1)")
    config.addinivalue_line("markers", "hidden: the student sees only the name and pass/fail")
    state = _state(config)
    seed = config.getoption("--grader-seed", None)
    state.seed = seed if seed is not None else int.from_bytes(os.urandom(8), "little")
    state.lang = config.getoption("--grader-lang", "en") or "en"


def pytest_collection_finish(session: pytest.Session) -> None:
    """The language and the course the check helpers (grader.checking) work in: one per session
    (set once here rather than by an autouse fixture, whose set-up pytest would pay per check)."""
    from grader.checking import set_course, set_language

    set_language(_state(session.config).lang)
    set_course(_course(session.config))


@pytest.fixture
def candidate(request: pytest.FixtureRequest) -> Any:
    state = _state(request.config)
    if state.candidate is None:
        state.candidate = _standalone_candidate(request.config)
    return state.candidate


@pytest.fixture(scope="session")
def reference(request: pytest.FixtureRequest) -> types.SimpleNamespace:
    from grader.checking import instructor_limit
    from grader import replay  # COURSEGEN_RECORD / COURSEGEN_REPLAY: see grader/replay/

    course = _course(request.config)
    # a reference that never returns fails its checks after Limits.instructor_seconds
    return instructor_limit.bounded_namespace(replay.provide_reference(lambda: reference_namespace(course)))


def _check_seed(request: pytest.FixtureRequest) -> int:
    """The seed of this check: from the run's secret seed (or a recording's public one) and its id."""
    from grader import replay

    forced = replay.forced_seed()  # a recording's public seed, when recording or replaying
    seed = _state(request.config).seed if forced is None else forced
    return derive_seed(seed, check_id(request.node))


@pytest.fixture
def rng(request: pytest.FixtureRequest):
    try:
        import torch
    except ImportError:
        raise RuntimeError(
            "the rng fixture is a torch.Generator and torch is not installed: a course without torch "
            "draws its inputs from py_rng (random.Random) or np_rng (numpy.random.Generator)"
        ) from None
    generator = torch.Generator()
    generator.manual_seed(_check_seed(request))
    return generator


@pytest.fixture
def py_rng(request: pytest.FixtureRequest):
    import random

    return random.Random(_check_seed(request))


@pytest.fixture
def np_rng(request: pytest.FixtureRequest):
    try:
        import numpy
    except ImportError:
        raise RuntimeError("the np_rng fixture needs numpy: add it to `requires:` in content/course.yaml") from None
    return numpy.random.default_rng(_check_seed(request))


@pytest.fixture(scope="session")  # one language per session: set up once, not per check
def lang(request: pytest.FixtureRequest) -> str:
    return _state(request.config).lang


def _course(config: pytest.Config) -> Course:
    """The course the session was handed (GradingDriver), or a plain pytest run's --grader-root."""
    state = _state(config)
    if state.course is None:
        from grader.course import Course

        state.course = Course.load(config.getoption("--grader-root", ".") or ".")
    return state.course


def _standalone_candidate(config: pytest.Config) -> Any:
    """The candidate of a plain `pytest -p grader.running.pytest_plugin grader/checks` run."""
    course = _course(config)
    path = config.getoption("--grader-submission", None)
    if path:
        from grader.sandbox import Limits, Sandbox
        from grader.reading.submission import load_submission

        submission = load_submission(Path(path), course)
        if submission.fatal:
            pytest.exit(f"{path}: {submission.fatal}", returncode=2)
        sandbox = Sandbox(limits=Limits(**course.limits), lang=_state(config).lang, course=course)
        context = sandbox.load(submission.code, Path(path).name)
        loaded = context.__enter__()

        def close() -> None:
            context.__exit__(None, None, None)
            sandbox.close()

        config.add_cleanup(close)
        return loaded
    return TrustedCandidate(trusted_namespace(course, config.getoption("--grader-candidate", None) or "solutions"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    from grader import replay

    replay.session_finished()  # record mode: write the recording
