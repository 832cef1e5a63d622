"""Prove every generated question's key against its independent oracle (@oracle, content/plugins/).

For each generated question, the answer function (reference code) and the oracle (the closed
form the lesson teaches) are evaluated on the question's whole parameter space, exhaustively
when it has at most EXHAUSTIVE_LIMIT combinations and otherwise property-based with hypothesis
(a fixed seed, so every run tries the same MAX_EXAMPLES combinations). They must agree within
the question's tolerance; an integer oracle (a count) must be matched exactly; a shape exactly.
Parameters the answer function rejects (InvalidParams) are skipped: no student sees them.

A disagreement is reported as `file:line:column: question 'id': params {...}: key X, oracle Y`.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from coursegen.errors import ContentError

from . import answers
from .load import LoadedQuiz
from .schema import GeneratedQuestion, Tolerance
from grader.errors import CoursegenError

EXHAUSTIVE_LIMIT = 5000  # parameter combinations checked one by one
MAX_EXAMPLES = 400  # hypothesis examples beyond that
SEED = 12  # hypothesis seed: the same examples on every run


@dataclass
class Disagreement(CoursegenError):
    params: dict[str, Any]
    key: Any
    expected: Any

    def describe(self) -> str:
        return f"params {self.params}: the key is {self.key!r}, the oracle says {self.expected!r}"


def space_size(question: GeneratedQuestion) -> int:
    return math.prod(len(spec.values()) for spec in question.generate.params.values())


def question_tolerance(question: GeneratedQuestion) -> Tolerance:
    return question.tolerance or Tolerance(abs=0.5 * 10**-question.decimals)


def agree(key: Any, expected: Any, kind: str, tolerance: Tolerance) -> bool:
    if kind == "shape":
        return [int(n) for n in key] == list(expected)
    if isinstance(expected, bool) or not isinstance(expected, (int, float)):
        return False
    key = float(key)
    if isinstance(expected, int):
        return key.is_integer() and int(key) == expected
    return math.isfinite(key) and tolerance.accepts(key, float(expected))


def compare_one(
    function: answers.AnswerFunction, oracle: Callable, params: dict[str, Any], tolerance: Tolerance
) -> bool:
    """True when compared, False when the answer function rejects these parameters;
    raises Disagreement when key and oracle differ."""
    try:
        key = function.func(**params).answer
    except answers.InvalidParams:
        return False
    except Exception as exc:  # noqa: BLE001 - reported with the parameters, like a disagreement
        raise Disagreement(dict(params), f"<the answer function raised {type(exc).__name__}: {exc}>", "?") from None
    try:
        expected = oracle(**params)
    except Exception as exc:  # noqa: BLE001
        raise Disagreement(dict(params), key, f"<the oracle raised {type(exc).__name__}: {exc}>") from None
    if not agree(key, expected, function.kind, tolerance):
        raise Disagreement(dict(params), key, expected)
    return True


@contextlib.contextmanager
def _hypothesis_home_outside_the_course() -> Iterator[None]:
    """hypothesis writes caches (the constants it reads from source files) under `./.hypothesis`,
    i.e. the user's course folder, even with `database=None`: point it at a temporary folder,
    removed afterwards, so verify leaves nothing behind."""
    from hypothesis.configuration import set_hypothesis_home_dir

    with tempfile.TemporaryDirectory(prefix="coursegen-hypothesis-") as home:
        set_hypothesis_home_dir(home)
        try:
            yield
        finally:
            # back to hypothesis's own choice (HYPOTHESIS_STORAGE_DIRECTORY or ./.hypothesis)
            set_hypothesis_home_dir(None)


def _hypothesis_search(question: GeneratedQuestion, check: Callable[[dict], bool]) -> None:
    """Run `check` on MAX_EXAMPLES combinations drawn by hypothesis (fixed seed, no example
    database, no files in the course folder); raises the (shrunk) Disagreement it finds."""
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    strategy = st.fixed_dictionaries(
        {name: st.sampled_from(spec.values()) for name, spec in question.generate.params.items()}
    )

    @seed(SEED)
    @settings(
        max_examples=MAX_EXAMPLES,
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(strategy)
    def run(params: dict) -> None:
        check(params)

    with _hypothesis_home_outside_the_course():
        run()


class Outcome(NamedTuple):
    method: str  # "exhaustive", "hypothesis" or "none"
    compared: int  # combinations where key and oracle were compared
    problem: Disagreement | str | None  # None: they agree everywhere
    tried: int = 0  # compared + rejected by the answer function (InvalidParams)


def check_question(root: Path, question: GeneratedQuestion) -> Outcome:
    """How one generated question's key fared against its oracle (both of the course at `root`)."""
    name = question.generate.answer
    function = answers.answer_functions(root).get(name)
    oracle = answers.oracles(root).get(name)
    if function is None:
        return Outcome("none", 0, f"unknown answer function '{name}'")
    if oracle is None:
        return Outcome("none", 0, f"answer function '{name}' has no @oracle in the course's content/plugins/")
    import inspect

    oracle_params = tuple(inspect.signature(oracle).parameters)
    if oracle_params != function.params:
        return Outcome(
            "none",
            0,
            f"the oracle of '{name}' takes ({', '.join(oracle_params)}), the answer function "
            f"({', '.join(function.params)})",
        )
    tolerance = question_tolerance(question)
    names = list(question.generate.params)
    compared = tried = 0

    def check(params: dict) -> bool:
        nonlocal compared, tried
        tried += 1
        done = compare_one(function, oracle, params, tolerance)
        compared += done
        return done

    try:
        if space_size(question) <= EXHAUSTIVE_LIMIT:
            axes = [question.generate.params[n].values() for n in names]
            for combo in itertools.product(*axes):
                check(dict(zip(names, combo)))
            return Outcome("exhaustive", compared, None, tried)
        _hypothesis_search(question, check)
        return Outcome("hypothesis", compared, None, tried)
    except Disagreement as exc:
        method = "exhaustive" if space_size(question) <= EXHAUSTIVE_LIMIT else "hypothesis"
        return Outcome(method, compared, exc, tried)


def check_quiz(loaded: LoadedQuiz, report: Callable[[str], None] | None = None) -> list[ContentError]:
    """Every disagreement between key and oracle in one quiz; `report` receives a line per question."""
    errors: list[ContentError] = []
    for index, question in enumerate(loaded.quiz.questions):
        if isinstance(question, GeneratedQuestion):
            errors += check_one(loaded, index, question, report)
    return errors


def check_one(
    loaded: LoadedQuiz, index: int, question: GeneratedQuestion, report: Callable[[str], None] | None = None
) -> list[ContentError]:
    """The disagreement (if any) between one generated question's key and its oracle."""
    errors: list[ContentError] = []
    method, compared, problem, tried = check_question(loaded.course_root, question)
    where = loaded.where(index, "generate")
    if isinstance(problem, Disagreement):
        errors.append(
            ContentError(
                where,
                f"question '{question.id}': the key disagrees with the oracle "
                f"of '{question.generate.answer}' at {problem.describe()}",
            )
        )
    elif problem is not None:
        errors.append(ContentError(where, f"question '{question.id}': {problem}"))
    if report is not None:
        verdict = "ok" if problem is None else "FAILED"
        report(
            f"  {question.id}: {verdict} ({compared} parameter combination(s), {method}; "
            f"{tried - compared} of {tried} rejected as invalid by the answer function)"
        )
    return errors
