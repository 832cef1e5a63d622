"""Grade many submissions in ONE pytest session.

`run_session(jobs, on_result, ...)` starts pytest once over the checks folder with
`GradingDriver` as a plugin; the driver replaces pytest's run loop: it collects the checks
once, then for each job loads the submission in the sandbox and runs the checks of the job's
exercises with pytest's own `runtestprotocol`. Starting pytest and importing torch is paid
once per grading process, not once per submission. The fixtures the checks use are in
grader/running/pytest_plugin.py and read the state kept here (`GraderState`, in the pytest config's stash),
among it the course the session was handed (grader.course.Course: its registry, references,
mistakes and checks).
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal

import pytest

from grader.course import Course, Registry
from grader.feedback import say
from grader.reporting.results import CheckResult
from grader.running.fault_place import fault_place
from grader.running.trusted import TrustedCandidate
from grader.errors import CoursegenError


# the problems (grader.reporting.problems) of a call that ran out of time: wall clock, CPU, the total
TIME_PROBLEMS = ("timeout", "cpu")


class GraderSetupError(CoursegenError):
    """The checks themselves cannot run (a broken check file, a missing marker)."""


# ---- the state the fixtures read -------------------------------------------------------------


@dataclass
class GraderState:
    seed: int = 0
    lang: str = "en"
    candidate: Any = None
    course: Course | None = None  # the course whose checks run (grader.course)


_STATE_KEY = pytest.StashKey[GraderState]()


def _state(config: pytest.Config) -> GraderState:
    if _STATE_KEY not in config.stash:
        config.stash[_STATE_KEY] = GraderState()
    return config.stash[_STATE_KEY]


def check_id(item: pytest.Item) -> str:
    """A stable id for a check, independent of where the checks folder lies."""
    return f"{Path(str(item.fspath)).stem}::{item.name}"


def derive_seed(seed: int, text: str) -> int:
    digest = hashlib.sha256(f"{seed}:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


# ---- the driver: many submissions, one pytest session ----------------------------------------


@dataclass
class Job:
    """One thing to grade. `key` is returned untouched with the result."""

    key: Any
    exercises: tuple[str, ...]
    code: str | None = None
    filename: str = "submission.py"
    fatal: str | None = None
    trusted: Any = None  # a namespace of trusted code: graded in-process, no sandbox
    # verify's odd-value probes (grader/verifying/odd_values.py): a check's own fault is recorded as
    # check_error with the check's file:line, never excused by re-running the check on the references
    probe: bool = False


@dataclass
class CheckInfo:
    item: pytest.Item
    exercise: str
    points: float
    hidden: bool
    says: dict[str, str] = field(default_factory=dict)  # a hidden check's property, per language


def hidden_property(item: pytest.Item) -> dict[str, str]:
    """What a hidden check checks, in words, per language: @pytest.mark.hidden(en=..., zh=...)."""
    marker = item.get_closest_marker("hidden")
    if marker is None:
        return {}
    return {lang: str(text) for lang, text in marker.kwargs.items() if lang in ("en", "zh") and text}


def check_info(item: pytest.Item, registry: Registry) -> CheckInfo:
    """The exercise, points and visibility of one collected check of the course whose exercises
    are `registry` (errors name the check)."""
    BY_NAME = registry.by_name
    marker = item.get_closest_marker("exercise")
    if marker is None or not marker.args:
        raise GraderSetupError(f'{item.nodeid}: every check needs @pytest.mark.exercise("<name>")')
    exercise = marker.args[0]
    if exercise not in BY_NAME:
        raise GraderSetupError(f"{item.nodeid}: exercise {exercise!r} is not in exercises/registry.py")
    points_marker = item.get_closest_marker("points")
    points = float(points_marker.args[0]) if points_marker and points_marker.args else 1.0
    hidden = item.get_closest_marker("hidden") is not None
    return CheckInfo(item, exercise, points, hidden, hidden_property(item))


@dataclass(eq=False)
class GradingDriver:
    """A pytest plugin object that replaces the run loop: for each job, load the candidate
    and run the checks of the job's exercises with pytest's own runtestprotocol."""

    jobs: Iterable[Job]
    on_result: Callable[[Job, list[CheckResult]], None]
    course: Course
    seed: int
    sandbox_factory: Callable[[], Any]
    lang: str = "en"
    reveal_hidden: bool = False  # verify only: keep hidden checks' feedback
    look_ahead: bool = False  # take the next job early and load it in its child meanwhile
    partner: bool = False  # with look_ahead: a forked second process may grade beside this one
    error: str | None = None
    _collect_errors: list[str] = field(default_factory=list)
    _sandbox: Any = None
    _exceptions: dict = field(default_factory=dict)
    _references: Any = None  # the references as a trusted candidate (_reference_passes)
    configured: Callable[[], None] = lambda: None  # called once pytest has read its command line

    def pytest_configure(self, config: pytest.Config) -> None:
        state = _state(config)
        state.seed, state.lang, state.course = self.seed, self.lang, self.course
        self.configured()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self._collect_errors.append(f"{report.nodeid}: {_last_line(report.longreprtext)}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
        """A bare report: pytest's own would format a traceback with source for every failure
        (half the grading time), and the feedback is the exception's message anyway."""
        excinfo = call.excinfo
        outcome: Literal["passed", "failed", "skipped"]
        longrepr: tuple[str, int, str] | str | None
        if excinfo is None:
            outcome, longrepr = "passed", None
        else:
            self._exceptions.setdefault(item.nodeid, excinfo.value)
            if excinfo.errisinstance(pytest.skip.Exception):
                outcome = "skipped"
                longrepr = (str(item.path), item.location[1] or 0, str(excinfo.value))
            else:
                outcome, longrepr = "failed", f"{excinfo.typename}: {excinfo.value}"
        assert call.when != "collect"  # this hook is called for setup, call and teardown only
        return pytest.TestReport(
            item.nodeid, item.location, {}, outcome, longrepr, call.when, [], call.duration, call.start, call.stop
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        partner = None
        try:
            if self._collect_errors:
                raise GraderSetupError("the checks could not be collected:\n" + "\n".join(self._collect_errors))
            registry = self.course.registry
            order = {e.name: i for i, e in enumerate(registry.exercises)}
            checks = sorted((check_info(item, registry) for item in session.items), key=lambda c: order[c.exercise])
            jobs: Iterator[Job] = iter(self.jobs)
            if self.partner and self.look_ahead:  # a batch: a second process grades beside this one
                from grader.running import partner as partners

                if self._sandbox is None:
                    self._sandbox = self.sandbox_factory()
                jobs, partner = partners.start(
                    jobs,
                    self._sandbox,
                    lambda its_jobs, its_on_result: self._grade_as_partner(its_jobs, its_on_result, checks, session),
                    self.on_result,
                )
            self._grade_all(jobs, checks, session, partner)
            if partner is not None:
                left, error, partner = partner.finish(), partner.error, None
                if error:
                    raise GraderSetupError(error)
                self._grade_all(iter(left), checks, session, None)  # what it could not grade
        except GraderSetupError as exc:
            self.error = str(exc)
        except Exception as exc:  # the sandbox or a worker broke: a grader problem, not the student's
            self.error = f"the grader failed: {type(exc).__name__}: {exc}"
        finally:
            if partner is not None:  # this process failed: its partner stops with it
                partner.kill()
            self._close_sandbox()
        return True

    def _grade_all(self, jobs: Iterator[Job], checks: list[CheckInfo], session: pytest.Session, partner: Any) -> None:
        current = self._take(jobs)
        while current is not None:
            # With look_ahead the next submission's child forks, isolates itself and runs the
            # student's code on the other core while this one's checks run here.
            following = self._take(jobs) if self.look_ahead else None
            self._check_leftovers()  # of earlier submissions, checked meanwhile
            self.on_result(current[0], self._contained(self._grade(*current, checks, session)))
            if partner is not None:
                partner.deliver()  # what the partner finished meanwhile, recorded in this thread
                if partner.error:  # its grading failed (a child outlived it, ...): the batch stops now
                    raise GraderSetupError(partner.error)
            current = following if self.look_ahead else self._take(jobs)

    def _grade_as_partner(
        self, jobs: Iterator[dict], on_result: Callable[[Job, list[CheckResult]], None], checks: list, session: Any
    ) -> str | None:
        """The partner process's whole grading (grader/running/partner.py): its jobs (each a Job's
        fields), its results sent back; the error that ends the batch, if any."""
        self.on_result = on_result
        try:
            own = (Job(**{**job, "exercises": tuple(job["exercises"])}) for job in jobs)
            self._grade_all(own, checks, session, None)
        except GraderSetupError as exc:
            self.error = str(exc)
        except Exception as exc:
            self.error = f"the grader failed: {type(exc).__name__}: {exc}"
        finally:
            self._close_sandbox()
        return self.error

    def _close_sandbox(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            left = self._leftovers()
            self._sandbox = None
            if left and not self.error:  # containment failed: the batch must not look fine
                self.error = f"a sandboxed child outlived its grading: {left[0]}"

    def _leftovers(self) -> list[str]:
        take = getattr(self._sandbox, "take_leftovers", None)  # stand-in sandboxes have none
        return list(take()) if take is not None else []

    def _check_leftovers(self) -> None:
        """A child's end is checked while grading goes on: a leftover found after its own
        submission's results were delivered ends the batch at once, naming it."""
        left = self._leftovers()
        if left:
            raise GraderSetupError(f"a sandboxed child outlived its grading: {left[0]}")

    def _contained(self, results: list[CheckResult]) -> list[CheckResult]:
        """The submission's results, marked when a process of its child was still alive after its
        end (grader.sandbox.containment: the sandbox checks after every child)."""
        left = self._leftovers()
        if left:
            for result in results:
                result.problem = result.problem or "leftover"
                result.output = "\n".join(filter(None, [result.output, f"grader problem: {left[0]}"]))
        return results

    def _take(self, jobs: Iterator[Job]) -> tuple[Job, Any] | None:
        """The next job and, with look_ahead, its candidate already loading (else None)."""
        job = next(jobs, None)
        if job is None:
            return None
        if not self.look_ahead or job.fatal or job.trusted is not None:
            return job, None
        if self._sandbox is None:
            self._sandbox = self.sandbox_factory()
        load_ahead = getattr(self._sandbox, "load_ahead", None)  # stand-in sandboxes may have none
        return job, load_ahead(job.code, job.filename) if load_ahead is not None else None

    def _grade(self, job: Job, loading: Any, checks: list[CheckInfo], session: pytest.Session) -> list[CheckResult]:
        from grader import replay

        selected = [c for c in checks if c.exercise in job.exercises and replay.keep_item(c.exercise, c.hidden)]
        if job.fatal:
            return [
                self._outcome(c, False, say("not_loaded", self.lang, reason=job.fatal), problem="unreadable")
                for c in selected
            ]
        if job.trusted is not None:
            return self._run(selected, TrustedCandidate(job.trusted), session, probe=job.probe)
        SubmissionLoadError = load_error_type()
        if self._sandbox is None:
            self._sandbox = self.sandbox_factory()
        try:
            if loading is not None:
                with loading as loaded:
                    loaded.wait_loaded()
                    return self._run(selected, loaded, session, probe=job.probe)
            with self._sandbox.load(job.code, job.filename) as loaded:
                return self._run(selected, loaded, session, probe=job.probe)
        except SubmissionLoadError as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            problem = f"import_{getattr(exc, 'kind', '') or 'raised'}"
            return [
                self._outcome(c, False, reason, problem=problem)  # already a sentence for the student
                for c in selected
            ]

    def _run(
        self, selected: list[CheckInfo], loaded: Any, session: pytest.Session, *, probe: bool = False
    ) -> list[CheckResult]:
        from _pytest.runner import runtestprotocol

        from grader.reporting import problems
        from grader.checking import take_fingerprint, take_matched_mistakes
        from grader.checking.mistakes import probing

        state = _state(session.config)
        state.candidate = loaded
        outcomes: dict[int, CheckResult] = {}
        probing(probe)
        try:
            defined = {c.exercise: loaded.has(c.exercise) for c in selected}
            # visible checks run first: the child keeps state between calls, so code that noted a
            # hidden check's inputs could otherwise show them in a later visible check's message
            runnable = [c for c in selected if defined[c.exercise] and not c.hidden] + [
                c for c in selected if defined[c.exercise] and c.hidden
            ]
            for index, check in enumerate(selected):
                if not defined[check.exercise]:
                    outcomes[index] = self._outcome(
                        check, False, say("not_defined", self.lang, name=check.exercise), problem="missing"
                    )
            timed_out: dict[str, str] = {}  # exercise -> the check in which its code ran out of time
            torn_down_for: Any = None  # the item the last check's teardown prepared for
            for check in runnable:
                if check.exercise in timed_out:  # an endless loop costs its limit once per exercise
                    outcomes[selected.index(check)] = self._timed_out_before(check, timed_out[check.exercise])
                    continue
                if torn_down_for is not None and torn_down_for is not check.item:  # it was skipped
                    check.item.session._setupstate.teardown_exact(check.item)
                position = runnable.index(check)
                nextitem = runnable[position + 1].item if position + 1 < len(runnable) else None
                torn_down_for = nextitem
                self._exceptions.pop(check.item.nodeid, None)
                take_matched_mistakes()
                reports = runtestprotocol(check.item, log=False, nextitem=nextitem)
                matched = take_matched_mistakes()
                fingerprint = take_fingerprint()
                passed = all(r.passed for r in reports if r.when == "call") and not any(
                    r.failed or r.skipped for r in reports
                )
                error = self._exceptions.pop(check.item.nodeid, None)
                feedback = "" if passed else self._feedback(error, reports)
                problem = "" if passed else problems.of_error(error)
                if problem == "check_error" and probe:
                    feedback = f"{fault_place(error, check.item, self.course.root)}: {feedback}"
                elif (
                    problem == "check_error"
                    and error is not None
                    and not _sent_by_the_check(error)
                    and self._reference_passes(check, nextitem, state)
                ):
                    # the check works on the reference's values: what broke it was the student's value
                    feedback = say("unusable_value", self.lang, name=check.exercise, error=_one_line(error))
                    problem = ""
                state.candidate = loaded
                if problem in TIME_PROBLEMS:
                    timed_out.setdefault(check.exercise, check.item.name)
                outcomes[selected.index(check)] = self._outcome(
                    check,
                    passed,
                    feedback,
                    mistakes=[] if passed else matched,
                    problem=problem,
                    fingerprint="" if passed else fingerprint,
                    guard=None if passed else getattr(error, "guard", None),
                )
            if torn_down_for is not None:  # the checks after the last one run were skipped
                runnable[0].item.session._setupstate.teardown_exact(None)
        finally:
            state.candidate = None
            probing(False)
        return [outcomes[index] for index in sorted(outcomes)]  # reported in the checks' own order

    def _timed_out_before(self, check: CheckInfo, first: str) -> CheckResult:
        """A check not run because its exercise's code already ran out of time in check `first` of
        this submission: failed, with a sentence saying so (for a hidden check too: it tells
        nothing of its inputs)."""
        sentence = say("timed_out_before", self.lang, name=check.exercise, first=first)
        outcome = self._outcome(check, False, sentence, problem="timeout")
        outcome.output = sentence  # not the hidden check's property: it was never run
        return outcome

    def _reference_passes(self, check: CheckInfo, nextitem: Any, state: Any) -> bool:
        """Whether `check` passes with the course's references as the candidate (the same seed,
        the same inputs): a check that fails with an unexpected exception on a student's value
        (10**400, a complex tensor, any object) but passes on the reference's is a wrong answer,
        never the grader's error; one that fails on the reference too is a real fault of the check."""
        from _pytest.runner import runtestprotocol

        from grader.checking import take_fingerprint, take_matched_mistakes
        from grader.running.trusted import reference_namespace

        if self._references is None:
            self._references = TrustedCandidate(reference_namespace(self.course))
        state.candidate = self._references
        self._exceptions.pop(check.item.nodeid, None)
        try:
            reports = runtestprotocol(check.item, log=False, nextitem=nextitem)
        finally:
            self._exceptions.pop(check.item.nodeid, None)
            take_matched_mistakes()
            take_fingerprint()
        return all(r.passed for r in reports if r.when == "call") and not any(r.failed or r.skipped for r in reports)

    def _feedback(self, error: BaseException | None, reports: list) -> str:
        from grader.checking import CandidateError, CheckFailure

        if isinstance(error, (CheckFailure, CandidateError)):
            return str(error)
        if isinstance(error, AssertionError):
            return str(error) or "assertion failed"
        if error is not None:
            return say("check_error", self.lang, error=f"{type(error).__name__}: {error}")
        for report in reports:
            if report.skipped:
                return say("check_error", self.lang, error=f"skipped: {_last_line(str(report.longrepr))}")
        return say("check_error", self.lang, error="unknown")

    def _outcome(
        self,
        check: CheckInfo,
        passed: bool,
        output: str,
        *,
        mistakes: list[str] | None = None,
        problem: str = "",
        fingerprint: str = "",
        guard: str | None = None,
    ) -> CheckResult:
        if check.hidden and not passed:
            output = _hidden_output(
                self.course, check, output, list(mistakes or []), self.lang, self.reveal_hidden, guard
            )
        return CheckResult(
            name=check.item.name,
            exercise=check.exercise,
            score=check.points if passed else 0.0,
            max_score=check.points,
            status="passed" if passed else "failed",
            output=output,
            hidden=check.hidden,
            mistakes=list(mistakes or []),
            problem=problem,
            fingerprint=fingerprint,
        )


def _sent_by_the_check(error: BaseException) -> bool:
    """An argument the check itself cannot send to student code (a bound method, an open file):
    the check's fault whatever the student returned. The trusted references, called in this
    process, would take it, so re-running the check on them proves nothing here."""
    from grader.sandbox.candidate import UnsupportedValue

    return isinstance(error, UnsupportedValue)


def _one_line(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:
        text = ""
    first = text.strip().splitlines()[0][:200] if text.strip() else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _hidden_output(
    course: Course,
    check: CheckInfo,
    output: str,
    mistakes: list[str],
    lang: str,
    reveal: bool,
    guard: str | None = None,
) -> str:
    """A failed hidden check's feedback: the property it checks, in words (or, when its preliminary
    step failed, `guard`: that the function must also be right on an ordinary input), then the
    hints of the catalogued mistakes that explain the output (trusted text); never its inputs or
    values. With `reveal` (verify), the full feedback follows."""
    from grader.hints import hints_of

    says = check.says.get(lang) or check.says.get("en")
    if guard:
        first = say("hidden_failed_guard", lang, name=guard)
    else:
        first = say("hidden_failed_property", lang, property=says) if says else say("hidden_failed", lang)
    if reveal:
        return "\n".join([first, output]) if output else first
    return "\n".join([first, *(say("hint", lang, hint=h) for h in hints_of(course, mistakes, lang))])


class _NoSandboxLoadError(CoursegenError):
    """Stands in for grader.sandbox.SubmissionLoadError where the sandbox is not installed."""


def load_error_type() -> type[Exception]:
    """The exception a sandbox raises when a submission cannot be loaded."""
    try:
        from grader.sandbox import SubmissionLoadError
    except ImportError:
        return _NoSandboxLoadError
    return SubmissionLoadError


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "error"


class _AddoptsSetAside:
    """PYTEST_ADDOPTS unset while a grading session's pytest reads its command line: options a user
    or a CI job gives its own test runs (--junitxml, -x, a plugin's flag) are not the grader's, and
    an option of a plugin the session leaves out would stop every grading run ("unrecognized
    arguments"). Put back as soon as the session is configured (`restore`), or when it ends."""

    _lock = threading.Lock()  # one session at a time reads the environment

    def __enter__(self) -> "_AddoptsSetAside":
        self._lock.acquire()
        self.held = True
        self.saved = os.environ.pop("PYTEST_ADDOPTS", None)
        return self

    def restore(self) -> None:
        if self.held:
            if self.saved is not None:
                os.environ["PYTEST_ADDOPTS"] = self.saved
            self.held = False
            self._lock.release()

    def __exit__(self, *exc: object) -> None:
        self.restore()


def _started(factory: Callable[[], Any]) -> Any:
    """A sandbox whose warm worker is launched now, in this thread (it imports torch while
    pytest starts and collects the checks; the first load waits for it). Not in a helper
    thread: the worker would die when that thread ends (PR_SET_PDEATHSIG is per thread)."""
    sandbox = factory()
    start = getattr(sandbox, "start", None)  # stand-in sandboxes of the tests may have none
    if start is not None:
        start()
    return sandbox


def run_session(
    jobs: Iterable[Job],
    on_result: Callable[[Job, list[CheckResult]], None],
    *,
    course: Course,
    seed: int,
    lang: str = "en",
    checks_dir: Path | None = None,
    sandbox_factory: Callable[[], Any] | None = None,
    reveal_hidden: bool = False,
    prestart_sandbox: bool = False,
    hide: tuple[str, ...] = (),
    look_ahead: bool = False,
    partner: bool = False,
) -> None:
    """Start one pytest session over `checks_dir` (default: the course's), grade every job against
        `course` (its registry, references and mistakes), call `on_result` per job.

        With `prestart_sandbox` the sandbox starts at once, in parallel with pytest, instead of
        when the first job needs it; `hide` lists more paths the child must not see (the gradebook,
        the report's folder). With `look_ahead` the next job is taken from `jobs` before the current
        one is graded, and its submission loads in its child meanwhile: only for a source of jobs
        that never waits for a result before it yields the next one; with `partner` too, a batch big
    enough is graded by this process and one forked from it (grader/running/partner.py). Raises GraderSetupError when the checks cannot run (collection
        error, missing marker).
    """
    checks_dir = Path(checks_dir or course.checks_dir).resolve()
    if sandbox_factory is None:

        def sandbox_factory() -> Any:
            from grader.sandbox import Limits, Sandbox

            return Sandbox(limits=Limits(**course.limits), lang=lang, hide=tuple(str(p) for p in hide), course=course)

    started = _started(sandbox_factory) if prestart_sandbox else None
    driver = GradingDriver(
        jobs=jobs,
        on_result=on_result,
        course=course,
        seed=seed,
        lang=lang,
        sandbox_factory=(lambda: started) if started is not None else sandbox_factory,
        reveal_hidden=reveal_hidden,
        look_ahead=look_ahead,
        partner=partner,
    )
    quiet = (
        "cacheprovider",
        "terminal",
        "stepwise",
        "logging",
        "warnings",
        "unraisableexception",
        "threadexception",
        "faulthandler",
        "pastebin",
        "junitxml",
        "doctest",
        "benchmark",
        "timeout",  # pytest-timeout/-xdist, when installed: the grader keeps its own limits and one process
        "xdist",
        "anyio",  # wraps every fixture's set-up to look for async fixtures; checks are synchronous
    )
    args = [
        str(checks_dir),
        "-p",
        "grader.running.pytest_plugin",
        *(f"-pno:{name}" for name in quiet),
        "--import-mode=importlib",
        "--capture=sys",
        # no conftest.py above the checks folder takes part in grading (e.g. the project's tests/)
        f"--confcutdir={checks_dir}",
        # rootdir "/": module names come from the full path, so two checks folders never clash
        f"--rootdir={checks_dir.anchor}",
        "-o",
        "addopts=",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
    ]
    from grader.checking import instructor_limit, trusted_results

    trusted_results.clear()  # what trusted code returned depends on the seed: kept for one session only
    instructor_limit.reset()
    try:
        with _AddoptsSetAside() as addopts:
            driver.configured = addopts.restore
            status = pytest.main(args, plugins=[driver])
    finally:
        trusted_results.clear()
        for (kind, name), seconds in instructor_limit.timed_out():  # the instructor must hear of it
            print(f"coursegen: the {kind} {name} did not return within {seconds:g} s; skipped", file=sys.stderr)
        if started is not None:
            started.close()  # closing twice is harmless; the driver closes what it used
    if driver.error:
        raise GraderSetupError(driver.error)
    if status == pytest.ExitCode.NO_TESTS_COLLECTED:
        raise GraderSetupError(f"no checks found in {checks_dir}")
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise GraderSetupError(f"pytest could not run the checks in {checks_dir} (exit status {int(status)})")
