"""A grading run as one value: what the command decided, built once and handed on unchanged.

    GradingRun(course, seed, lang, definition, ...)   frozen; grader.scaleout.batch.run_batch takes it,
                                                      fills in the seed and the hidden paths, and
                                                      hands it to an executor (grader/scaleout/executors.py)

Every grading process grades with the run it is handed: a local worker or a Dask worker gets the
run as plain data (`spec()`, no objects cross a process boundary but strings and numbers) and
rebuilds it with `GradingRun.from_spec` (the course is loaded from its root, never guessed from
the worker's folder). The grading service (coursegen/service) builds one per language.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from grader.course import Course

if TYPE_CHECKING:
    from grader.reporting.assignments import Definition
    from grader.reporting.results import CheckResult
    from grader.reading.submission import Submission


@dataclass(frozen=True)
class GradingRun:
    """What one grading run grades with, and how its submissions are read and recorded.

    `seed`: the secret seed drawing the checks' inputs (None: the gradebook's, else a new one);
    `lang`: the language of the checks' feedback; `definition`: the assignment every submission
    is graded against (grader/reporting/assignments.py), `new_definition` an explicit re-grade
    against a changed one; `checks_dir`: the checks (default: the course's); `module`, `roster`
    and `shard`: how a batch's files are read, named and split; `hide`: more paths the sandboxed
    child must not see (the course's own are hidden by its sandbox); `sandbox_factory`
    ("module:function") replaces the real sandbox (tests only). The limits are the course's
    (`course.limits`)."""

    course: Course
    seed: int | None = None
    lang: str = "en"
    definition: Definition | None = None
    new_definition: bool = False
    checks_dir: Path | None = None
    module: str | None = None
    roster: Path | None = None
    shard: tuple[int, int] | None = None
    hide: tuple[str, ...] = ()
    sandbox_factory: str | None = None

    def but(self, **changes: Any) -> GradingRun:
        """This run with some fields changed (a new frozen value)."""
        return replace(self, **changes)

    def spec(self) -> dict:
        """What a grading process needs, as plain data (see from_spec)."""
        return {
            "root": str(self.course.root),
            "seed": self.seed,
            "lang": self.lang,
            "checks_dir": None if self.checks_dir is None else str(self.checks_dir),
            "sandbox_factory": self.sandbox_factory,
            "hide": list(self.hide),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> GradingRun:
        """The run a grading process was handed: its course loaded from the root given."""
        checks_dir = spec.get("checks_dir")
        return cls(
            course=Course.load(spec["root"]),
            seed=spec["seed"],
            lang=spec["lang"],
            checks_dir=None if checks_dir is None else Path(checks_dir),
            sandbox_factory=spec.get("sandbox_factory"),
            hide=tuple(spec.get("hide", ())),
        )

    def grade(
        self,
        items: Iterable[tuple[Any, Submission]],
        on_result: Callable[[Any, list[CheckResult]], None],
        *,
        prestart_sandbox: bool = False,
        look_ahead: bool | None = None,
        partner: bool = False,
    ) -> None:
        """Grade (key, submission) pairs in one pytest session of this process
        (grader.running.grade.grade_submissions); `on_result(key, outcomes)` per item."""
        from grader.running.grade import grade_submissions
        from grader.scaleout.grading_process import resolve_factory

        if self.seed is None:
            raise ValueError("a grading run grades with a seed: fill it in (grader.scaleout.batch.run_batch does)")
        grade_submissions(
            items,
            on_result,
            course=self.course,
            seed=self.seed,
            lang=self.lang,
            checks_dir=self.checks_dir,
            sandbox_factory=resolve_factory(self.sandbox_factory),
            prestart_sandbox=prestart_sandbox,
            hide=self.hide,
            look_ahead=look_ahead,
            partner=partner,
        )
