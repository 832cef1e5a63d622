"""Exceptions the sandbox raises in the grader process. Their messages are student-facing
sentences (see messages.py); `.kind` says which limit or failure it was, for reports and tests."""

from __future__ import annotations

from grader.errors import CoursegenError


class CandidateError(CoursegenError, AssertionError):
    """A call into the submission failed: it raised, returned something unusable, hit a limit or
    crashed. An AssertionError so that a check calling the candidate simply fails."""

    def __init__(self, message: str, kind: str, name: str | None = None):
        super().__init__(message)
        self.message = message
        self.kind = kind  # timeout cpu memory file_size output raised returned exited crashed garbled missing gone
        self.name = name  # the function or method being called

    def __str__(self) -> str:
        return self.message


class SubmissionLoadError(CoursegenError):
    """Executing the submission's source failed (syntax error, exception, exit or limit at import)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.message = message
        self.kind = kind

    def __str__(self) -> str:
        return self.message


class SandboxError(CoursegenError, RuntimeError):
    """The sandbox itself could not run (the worker failed to start or died): a grader problem,
    not the student's."""
