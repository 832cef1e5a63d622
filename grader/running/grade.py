"""Grade submissions: load each in the sandbox, run the checks of its exercises, collect results.

    grade_submission(submission, course=..., seed=None, lang="en") -> SubmissionResult   one file
    grade_submissions(items, on_result, course=..., seed=..., lang=...)                  many, one pytest session

`course` (grader.course.Course) is the course whose checks, references and mistakes grade them.

A batch of many submissions is grader.scaleout.batch.run_batch; results are grader.reporting.results' types.

The seed that draws every check's inputs is secret and per run (`new_seed()`, from
os.urandom) unless given; a batch stores it in its gradebook so a resumed batch and every
shard see the same inputs. Hidden checks keep only name, points and pass/fail.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable

from grader.course import Course
from grader.feedback import Problem
from grader.running.session import Job, run_session
from grader.reporting.results import CheckResult, SubmissionResult
from grader.reading.submission import Submission


def new_seed() -> int:
    """A fresh secret seed for one run."""
    return int.from_bytes(os.urandom(8), "little") & (2**63 - 1)


def result_from(
    submission: Submission, outcomes: list[CheckResult], *, student: str, name: str, lang: str
) -> SubmissionResult:
    from grader.reporting.problems import run_kinds

    tests = list(outcomes)
    problems: list[Problem] = [*submission.problems, *([submission.fatal] if submission.fatal else [])]
    return SubmissionResult(
        student=student,
        submission=name,
        sha256=submission.sha256,
        score=sum(t.score for t in tests),
        max_score=sum(t.max_score for t in tests),
        tests=tests,
        problems=problems,
        lang=lang,
        problem_kinds=run_kinds((t.problem for t in tests), fatal=bool(submission.fatal)),
    )


def job_for(submission: Submission, key: Any, lang: str = "en") -> Job:
    """What a grading session grades: the submission's code, and why it cannot run in the words
    of the checks' feedback language."""
    return Job(
        key=key,
        exercises=submission.exercises,
        code=submission.code,
        filename=submission.path.name,
        fatal=None if submission.fatal is None else submission.fatal.text(lang),
    )


def grade_submissions(
    items: Iterable[tuple[Any, Submission]],
    on_result: Callable[[Any, list[CheckResult]], None],
    *,
    course: Course,
    seed: int,
    lang: str = "en",
    checks_dir: Path | None = None,
    sandbox_factory: Callable[[], Any] | None = None,
    prestart_sandbox: bool = False,
    hide: tuple[str, ...] = (),
    look_ahead: bool | None = None,
    partner: bool = False,
) -> None:
    """Grade (key, submission) pairs in one pytest session; `on_result(key, outcomes)` per item.

    `prestart_sandbox`: start the sandbox while pytest starts (when most items will need it).
    `look_ahead`: load the next submission while the current one is checked (default: when
    `items` is a list or tuple; an iterator only if it never waits for a result). `partner`: a
    batch big enough is graded on two cores (grader/running/partner.py)."""
    if look_ahead is None:
        look_ahead = isinstance(items, (list, tuple))
    jobs = (job_for(submission, key, lang) for key, submission in items)
    run_session(
        jobs,
        lambda job, outcomes: on_result(job.key, outcomes),
        course=course,
        seed=seed,
        lang=lang,
        checks_dir=checks_dir,
        sandbox_factory=sandbox_factory,
        prestart_sandbox=prestart_sandbox,
        hide=hide,
        look_ahead=look_ahead,
        partner=partner,
    )


def grade_submission(
    submission: Submission,
    *,
    course: Course,
    seed: int | None = None,
    lang: str = "en",
    exercises: Iterable[str] | None = None,
    student: str | None = None,
    checks_dir: Path | None = None,
    sandbox_factory: Callable[[], Any] | None = None,
    hide: tuple[str, ...] = (),
) -> SubmissionResult:
    """Grade one submission (its own pytest session and sandbox); `hide`: more paths the child
    must not see (the /autograder tree wherever it lies)."""
    if exercises is not None:
        submission.exercises = tuple(exercises)
    collected: list[CheckResult] = []
    grade_submissions(
        [(None, submission)],
        lambda key, outcomes: collected.extend(outcomes),
        course=course,
        seed=new_seed() if seed is None else seed,
        lang=lang,
        checks_dir=checks_dir,
        sandbox_factory=sandbox_factory,
        prestart_sandbox=not submission.fatal,
        hide=hide,
    )
    return result_from(
        submission, collected, student=student or submission.path.stem, name=str(submission.path), lang=lang
    )
