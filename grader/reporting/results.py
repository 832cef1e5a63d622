"""What grading produces: one `CheckResult` per check, one `SubmissionResult` per submission.

The grading driver (grader/running/session.py) makes the CheckResults; reports, the gradebook, verify and
the LMS exports read them. Plain dataclasses, so a result crosses a process boundary as a dict.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from grader.feedback import Problem, shown


@dataclass
class CheckResult:
    name: str
    exercise: str
    score: float
    max_score: float
    status: str  # "passed" | "failed"
    output: str = ""
    hidden: bool = False
    mistakes: list[str] = field(default_factory=list)  # catalogued mistakes the output matched (ids)
    problem: str = ""  # why no answer came: "", "timeout", "unreadable", ... (grader/reporting/problems.py)
    fingerprint: str = ""  # the wrong output, summarised (grader/fingerprint.py); never shown to students

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass
class SubmissionResult:
    student: str
    submission: str  # the submission's path as given (or relative to the batch folder)
    sha256: str
    score: float
    max_score: float
    tests: list[CheckResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # kept as kinds (grader.feedback.Said), or old sentences
    lang: str = "en"
    problem_kinds: list[str] = field(default_factory=list)  # grader.reporting.problems.KINDS found in this run
    assignment: str = ""  # the course assignment it was graded against ("" when none was named)
    definition: str = ""  # that assignment's definition hash (grader/reporting/assignments.py)
    graded_against: str = ""  # one line: what was graded and out of what
    # the late policy applied (grader/reporting/lateness.py describe(): submitted_at, source, raw,
    # late_by_seconds, penalty, final); None when the assignment has no due date. `score` stays raw.
    lateness: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """As plain data, the problems in words of the run's language."""
        data = asdict(self)
        data["problems"] = self.problems_in(self.lang)
        return data

    def problems_in(self, lang: str) -> list[str]:
        """The problems in words of `lang` (a sentence an older run stored stays as it is)."""
        return [shown(p, lang) for p in self.problems]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubmissionResult:
        tests = [CheckResult(**t) for t in data.get("tests", [])]
        return cls(**{**data, "tests": tests})
