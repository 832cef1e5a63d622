"""The sandbox that runs untrusted student code (see docs/security.md and docs/architecture.md).

from grader.sandbox import Sandbox, Limits
with Sandbox(limits=Limits(), lang="en") as sandbox:
    with sandbox.load(code, filename="vectors.py") as candidate:
        y = candidate.dot(a, b)     # runs in an isolated child
"""

from .errors import CandidateError, SandboxError, SubmissionLoadError
from .limits import Limits
from .candidate import Candidate, RemoteObject
from .sandbox import Sandbox

__all__ = ["Sandbox", "Limits", "Candidate", "RemoteObject", "CandidateError", "SubmissionLoadError", "SandboxError"]
