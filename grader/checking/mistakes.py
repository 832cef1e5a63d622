"""Recognising the catalogued mistakes (the course's solutions/mistakes) in a student's wrong
answer: a mistake that, run here on the same inputs, gives the student's output, raises the same
exception or changes an argument the same way has its hint added to the feedback, in the
student's language. Mistakes are trusted code, bounded in time like the references
(grader.checking.instructor_limit); `confirmed_by` blocks tell apart mistakes that fail one check alike."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

from grader.checking.instructor_limit import InstructorTimeout, bounded
from grader.sandbox import CandidateError

from .comparison import same
from .language import current_language
from .local_objects import copies
from .records import note_matched
from .runs import run_bounded

NOTHING = object()  # no value given (a default no value equals)


_course: Any = None  # the grading session's course (grader.course.Course), set by the grader's pytest plugin


def set_course(course: Any) -> None:
    """The course whose catalogued mistakes the checks recognise: the one the session was handed."""
    global _course
    _course = course


_probing = False  # verify's odd-value probes are graded: no catalogued mistake is run to explain them


def probing(on: bool) -> None:
    """While verify grades its odd-value probes (grader/verifying/odd_values.py), no mistake is run
    to explain a value: no mistake explains 10**400, and running every mistake for every probe and
    check would cost more than the proof itself. The one step of hint matching a student's value
    reaches, `same(value, mistake's output)`, is total for any value (tests/redteam)."""
    global _probing
    _probing = on


def _mistakes_of(target: str) -> tuple:
    if _probing:
        return ()
    if _course is None:
        raise RuntimeError("no course: checks run in a grading session (grader.running.session.run_session)")
    return mistakes_in(_course, target)


@functools.lru_cache(maxsize=None)
def mistakes_in(course: Any, target: str) -> tuple:
    """The catalogued mistakes of exercise `target` of `course` (cached: a catalogue is read once)."""
    if target not in course.registry.by_name:
        return ()
    return tuple(course.for_target(target))


def matching_hints(
    target: str,
    actual: Any,
    redo: Callable[[Callable], Any],
    atol: Any = 1e-5,
    rtol: float = 1e-5,
    redo_as_given: Callable[[Callable], Any] | None = None,
    expected: Any = NOTHING,
) -> list[str]:
    """Hints (in the current language) of the catalogued mistakes of `target` that produce
    `actual` when run on the same inputs. Mistakes are trusted code and run here. A mistake
    that gives the `expected` values explains no wrong value; one that disagrees with the
    student on the inputs of a `confirmed_by` block explains nothing either.

    Mistakes whose output matches exactly, dtype included (run by `redo_as_given`), win;
    otherwise values alone are compared (the mistakes run like the reference, in float64)."""
    exact = redo_as_given if redo_as_given is not None else redo
    for runner, check_dtype in ((exact, True), (redo, False)):
        hints: list[str] = []
        matched = []
        for mistake in _mistakes_of(target):
            if not _confirmed(mistake):
                continue
            try:
                produced = run_bounded(("mistake", mistake.id), runner, mistake.obj)
            except Exception:  # InstructorTimeout too: no hint from a mistake that did not return
                continue
            if not check_dtype and expected is not NOTHING and same(produced, expected, atol, rtol, False):
                continue  # right values: this mistake cannot explain wrong ones
            if same(actual, produced, atol, rtol, check_dtype):
                matched.append(mistake)
                hint = mistake.hint.get(current_language()) or mistake.hint["en"]
                if hint not in hints:
                    hints.append(hint)
        if hints:
            for mistake in matched:
                note_matched(mistake)
            return hints
    return []


def hints_for_raising(
    target: str, run: Callable[[Callable], Any], *, raised: str | None = None, returned: Any = NOTHING
) -> list[str]:
    """Hints of the mistakes that behave like the student did: raise the same exception
    type, or return the same value where an exception was expected."""
    hints = []
    for mistake in _mistakes_of(target):
        if not _confirmed(mistake):
            continue
        try:
            produced = run_bounded(("mistake", mistake.id), run, mistake.obj)
        except InstructorTimeout:
            continue  # no hint from a mistake that did not return (named by verify and grade)
        except Exception as error:
            alike = raised is not None and type(error).__name__ == raised
        else:
            alike = returned is not NOTHING and same(returned, produced, 1e-5, 1e-5, check_dtype=False)
        if alike:
            note_matched(mistake)
            hint = mistake.hint.get(current_language()) or mistake.hint["en"]
            if hint not in hints:
                hints.append(hint)
    return hints


def hints_for_changed_input(
    target: str, args: tuple, kwargs: dict, parameters: list[str], label: str, after: Any
) -> list[str]:
    """Hints of the catalogued mistakes of `target` that, run on copies of `args` and `kwargs`, leave
    the argument `label` (a name of `parameters`, or a keyword) as `after`, as the student's code did."""
    lang = current_language()
    hints = []
    for mistake in _mistakes_of(target):
        given = (copies(args), copies(kwargs))
        try:
            mistake.obj(*given[0], **given[1])
        except Exception:
            continue
        theirs = dict(zip(parameters, given[0])) | given[1]
        if label in theirs and same(after, theirs[label], 0.0, 0.0, check_dtype=True):
            note_matched(mistake)
            hint = mistake.hint.get(lang) or mistake.hint["en"]
            if hint not in hints:
                hints.append(hint)
    return hints


_confirmations: list[tuple[Any, str, list[tuple[tuple, dict]], dict[int, Any]]] = []


class confirmed_by:
    """`with confirmed_by(candidate, "dot", [(args, kwargs), ...]):` around a comparison: a
    catalogued mistake of "dot" is named in the feedback only when, on each of these further
    inputs, it also behaves as the student's code does (the same value, or the same exception
    type). Two mistakes that fail one check alike are told apart where they differ."""

    def __init__(self, candidate: Any, name: str, calls: list[tuple[tuple, dict]]):
        self._entry: tuple[Any, str, list[tuple[tuple, dict]], dict[int, Any]] = (candidate, name, calls, {})

    def __enter__(self) -> "confirmed_by":
        _confirmations.append(self._entry)
        return self

    def __exit__(self, *exc: object) -> None:
        _confirmations.remove(self._entry)


def _confirmed(mistake: Any) -> bool:
    for candidate, name, calls, seen in _confirmations:
        if name != mistake.target:
            continue
        for index, (args, kwargs) in enumerate(calls):
            if index not in seen:
                seen[index] = _behaviour(lambda: getattr(candidate, name)(*copies(args), **copies(kwargs)))
            try:  # the mistake's run is bounded like every run of instructor code
                theirs = bounded(
                    ("mistake", mistake.id), lambda: _behaviour(lambda: mistake.obj(*copies(args), **copies(kwargs)))
                )
            except InstructorTimeout:
                return False
            mine = seen[index]
            if mine[0] != theirs[0]:
                return False
            if mine[0] == "raised" and mine[1] != theirs[1]:
                return False
            if mine[0] == "value" and not same(mine[1], theirs[1], 1e-5, 1e-5, check_dtype=False):
                return False
    return True


def _behaviour(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return ("value", call())
    except CandidateError as error:
        return ("raised", raised_name(str(error)))
    except Exception as error:  # noqa: BLE001 - trusted code raising is what is compared
        return ("raised", type(error).__name__)


def raised_name(message: str) -> str | None:
    found = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Warning))\b", message)
    return found.group(1) if found else None
