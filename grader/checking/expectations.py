"""The expectations a check states (grader/checks): call the student's code and the reference
with the same inputs and compare (`expect_call`, `expect_behaviour` for a class), compare values
already in hand (`expect_close`, `expect_equal`), expect an exception (`expect_raises`), inputs
left unchanged, or a property partly-right code keeps (`expect_shape`, `expect_at_least`). A
mismatch raises CheckFailure, whose message is the feedback the student reads, with the hints of
the catalogued mistakes that explain it (grader.checking.mistakes)."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.feedback import say
from grader.sandbox import CandidateError

from .comparison import compare, dtype_name, format_value, kind_of, same
from .language import current_language
from .mistakes import NOTHING, hints_for_changed_input, hints_for_raising, matching_hints, raised_name
from .records import note_fingerprint
from .runs import Observation, Runner, float64_copies, run_bounded
from grader.errors import CoursegenError


class CheckFailure(CoursegenError, AssertionError):
    """A check found a wrong answer. The message is written for the student. `guard`: the function
    whose preliminary step failed (expect_working: right values on an ordinary input), so that a
    hidden check's sentence says that step failed, not the property the check protects."""

    def __init__(self, *args: Any, guard: str | None = None) -> None:
        super().__init__(*args)
        self.guard = guard


def expect_call(
    candidate: Any,
    reference: Any,
    name: str,
    *args: Any,
    atol: float | torch.Tensor = 1e-5,
    rtol: float = 1e-5,
    expected_dtype: torch.dtype | None = None,
    **kwargs: Any,
) -> Any:
    """Call `name` on the candidate and on the reference with the same inputs and compare.

    The reference runs on float64 copies of floating tensors; the expected dtype is then
    the dtype of those inputs (functions that transform a tensor return its dtype), unless
    `expected_dtype` says otherwise. `atol` may be a tensor broadcastable to the output
    (a tolerance growing with position). Returns the candidate's output.
    """
    input_dtype = float64_copies(args, kwargs)[2]
    run = Runner(args, kwargs)  # the inputs copied and keyed before the candidate sees them
    actual = _call_candidate(name, lambda: getattr(candidate, name)(*args, **kwargs), run)
    expected = run_bounded(("reference", name), run, getattr(reference, name))
    expect_close(
        actual,
        expected,
        atol=atol,
        rtol=rtol,
        what=name,
        target=name,
        redo=run,
        expected_dtype=expected_dtype,
        upcast_from=input_dtype,
        redo_as_given=run.as_given,
    )
    return actual


def expect_working(
    candidate: Any,
    reference: Any,
    name: str,
    *args: Any,
    atol: float | torch.Tensor = 1e-5,
    rtol: float = 1e-5,
    **kwargs: Any,
) -> Any:
    """`expect_call` as the first step of a property or error-path check: the check counts only
    when `name` also returns the reference's values on this ordinary input."""
    try:
        return expect_call(candidate, reference, name, *args, atol=atol, rtol=rtol, **kwargs)
    except CheckFailure as failure:
        needs = say("needs_right_values", current_language(), name=name)
        raise CheckFailure("\n".join([needs, str(failure)]), guard=name) from None
    except CandidateError as error:  # it raised or timed out on the ordinary input: that step failed
        error.guard = name  # type: ignore[attr-defined]
        raise


def expect_shape(actual: Any, shape: tuple[int, ...], *, what: str, floating: bool = True) -> torch.Tensor:
    """`actual` is a tensor of `shape` (of a floating dtype unless `floating` is False): the first
    step of a property check on a tensor."""
    lang = current_language()
    if not isinstance(actual, torch.Tensor):
        note_fingerprint("value", actual)
        raise CheckFailure(say("wrong_type", lang, what=what, actual=kind_of(actual), expected="torch.Tensor"))
    if tuple(actual.shape) != tuple(shape) or (floating and not actual.is_floating_point()):
        note_fingerprint("value", actual)
    if tuple(actual.shape) != tuple(shape):
        raise CheckFailure(say("wrong_shape", lang, what=what, actual=list(actual.shape), expected=list(shape)))
    if floating and not actual.is_floating_point():
        raise CheckFailure(
            say("wrong_dtype", lang, what=what, actual=dtype_name(actual.dtype), expected="torch.float32 / float64")
        )
    return actual


def expect_at_least(value: float, bound: float, *, what: str, why: dict[str, str]) -> None:
    """`value` >= `bound`: a property of a partly-right answer that no-effort code lacks (`why`
    says which, in every feedback language: {"en": ..., "zh": ...}). NaN fails."""
    if not value >= bound:
        lang = current_language()
        note_fingerprint("value", value)
        shown = {"actual": format_value(value), "bound": format_value(bound)}
        raise CheckFailure(say("too_small", lang, what=what, why=why[lang], **shown))


def expect_behaviour(
    candidate: Any,
    reference: Any,
    name: str,
    scenario: Callable[[Callable], Any],
    *,
    atol: float | torch.Tensor = 1e-5,
    rtol: float = 1e-5,
    what: str | None = None,
    evidence: Callable[[Callable], Any] | None = None,
) -> Any:
    """Compare what `scenario(make)` observes with the student's class and the reference class.

    `make(*args)` builds an object: in the sandbox for the candidate (a RemoteObject), here
    for the reference and the catalogued mistakes (a LocalObject with the same methods).
    `evidence(make)`, when given, is a second, finer observation (e.g. outputs with known
    weights): on a failure, a catalogued mistake's hint is shown only when the mistake also
    gives the student's evidence, so that a summary both share (a broken causality) does not
    name the wrong misconception.
    """
    observe = Observation(scenario)  # trusted classes: the reference, the catalogued mistakes
    try:
        actual = _call_candidate(name, lambda: scenario(getattr(candidate, name)), observe)
    except AssertionError:  # a wrong answer, or the candidate's own error: already a message
        raise
    except Exception as error:  # noqa: BLE001 - the scenario broke on what the student's class gave
        run_bounded(("reference", name), observe, getattr(reference, name))
        # it works with the reference (else that error is raised above: a real fault of the check)
        raise CheckFailure(say("unusable_value", current_language(), name=name, error=_one_line(error))) from None
    expected = run_bounded(("reference", name), observe, getattr(reference, name))
    redo: Callable[[Callable], Any] = observe
    if evidence is not None:
        redo = _confirmed_by(Observation(evidence), lambda: evidence(getattr(candidate, name)), observe)
    expect_close(
        actual,
        expected,
        atol=atol,
        rtol=rtol,
        what=what or name,
        target=name,
        redo=redo,
    )
    return actual


def _one_line(error: BaseException) -> str:
    try:
        text = str(error).strip()
    except Exception:  # noqa: BLE001 - a student's object may refuse even to be shown
        text = ""
    return f"{type(error).__name__}: {text.splitlines()[0][:200]}" if text else type(error).__name__


def _confirmed_by(
    evidence: Callable[[Callable], Any], students: Callable[[], Any], redo: Callable[[Callable], Any]
) -> Callable[[Callable], Any]:
    """`redo`, for the implementations whose `evidence(impl)` equals the student's (asked once, when
    a mistake is first tried); where the student's evidence cannot be had, `redo` as it is."""
    seen: list[Any] = []

    def confirmed(impl: Callable) -> Any:
        if not seen:
            try:
                seen.append(students())
            except Exception:  # noqa: BLE001 - the student's code failed here too: no finer evidence
                seen.append(NOTHING)
        if seen[0] is NOTHING:
            return redo(impl)
        try:
            theirs = evidence(impl)
        except Exception:  # noqa: BLE001 - a mistake that cannot give the evidence does not explain it
            return NOTHING
        if not same(seen[0], theirs, 1e-4, 1e-4, check_dtype=False):  # another layout rounds differently
            return NOTHING
        return redo(impl)

    return confirmed


def expect_raises(
    candidate: Any, name: str, exception: type[BaseException], *args: Any, match: str | None = None, **kwargs: Any
) -> str:
    """The student's `name(*args, **kwargs)` must raise `exception` (checked by its name).

    `match` is a regular expression the error message must contain. Returns the message.
    """
    lang = current_language()
    wanted = exception.__name__
    try:
        returned = getattr(candidate, name)(*args, **kwargs)
    except CandidateError as error:
        message = str(error)
        raised = raised_name(message)
        if raised != wanted or (match and not re.search(match, message)):
            note_fingerprint("raised", raised or "error")
            problem = say("wrong_exception", lang, what=name, expected=wanted, actual=message)
            hints = hints_for_raising(name, Runner(args, kwargs), raised=raised)
            raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)])) from None
        return message
    note_fingerprint("returned", returned)
    problem = say("no_exception", lang, what=name, expected=wanted)
    hints = hints_for_raising(name, Runner(args, kwargs), returned=returned)
    raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)]))


def expect_inputs_unchanged(candidate: Any, reference: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """The student's `name(*args, **kwargs)` leaves its arguments as they were (a contract that
    says "the input is not changed"). The child reports the arguments back after the call and
    they are compared here; the hint of a catalogued mistake that changes them the same way is
    added. Returns the candidate's result."""
    lang = current_language()
    run = Runner(args, kwargs)
    result, args_after, kwargs_after = _call_candidate(
        name, lambda: candidate.call_keeping_inputs(name, *args, **kwargs), run
    )
    try:
        parameters = list(inspect.signature(getattr(reference, name)).parameters)
    except (TypeError, ValueError):
        parameters = []
    pairs = [
        (parameters[i] if i < len(parameters) else f"#{i + 1}", a, b) for i, (a, b) in enumerate(zip(args, args_after))
    ]
    pairs += [(key, kwargs[key], kwargs_after.get(key, NOTHING)) for key in kwargs]
    for label, before, after in pairs:
        problem = compare(after, before, 0.0, 0.0, f"{label} after the call", lang, None, None)
        if problem is None:
            continue
        note_fingerprint("changed", after)
        hints = hints_for_changed_input(name, args, kwargs, parameters, label, after)
        sentence = say("input_changed", lang, what=name, name=label, problem=problem)
        raise CheckFailure("\n".join([sentence, *(say("hint", lang, hint=h) for h in hints)]))
    return result


def expect_equal(
    actual: Any,
    expected: Any,
    *,
    what: str = "the result",
    target: str | None = None,
    redo: Callable[[Callable], Any] | None = None,
) -> None:
    """Exact equality (integers, booleans, lists, tensors of any dtype)."""
    expect_close(actual, expected, atol=0.0, rtol=0.0, what=what, target=target, redo=redo)


def expect_close(
    actual: Any,
    expected: Any,
    *,
    atol: float | torch.Tensor = 1e-5,
    rtol: float = 1e-5,
    what: str = "the result",
    target: str | None = None,
    redo: Callable[[Callable], Any] | None = None,
    expected_dtype: torch.dtype | None = None,
    upcast_from: torch.dtype | None = None,
    redo_as_given: Callable[[Callable], Any] | None = None,
) -> None:
    """Compare nested tensors / numbers / lists; raise CheckFailure with feedback on mismatch.

    With `target` and `redo` (redo(impl) recomputes the expected value with another
    implementation), the hints of the target's catalogued mistakes whose output matches
    `actual` are appended to the feedback. `redo_as_given` runs an implementation on the
    inputs in their own dtypes, to tell apart mistakes that differ only in dtype.
    """
    lang = current_language()
    problem = compare(actual, expected, atol, rtol, what, lang, expected_dtype, upcast_from)
    if problem is None:
        return
    note_fingerprint("value", actual)
    hints = matching_hints(target, actual, redo, atol, rtol, redo_as_given, expected) if target and redo else []
    raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)]))


def _call_candidate(target: str, call: Callable[[], Any], run: Callable[[Callable], Any]) -> Any:
    """Call the candidate; when it raises an exception that a catalogued mistake of `target`
    also raises on these inputs, fail with that mistake's hint added."""
    try:
        return call()
    except CandidateError as error:
        raised = raised_name(str(error))
        note_fingerprint("raised", raised or getattr(error, "kind", "") or "error")
        hints = hints_for_raising(target, run, raised=raised) if raised else []
        if not hints:
            raise
        lang = current_language()
        raise CheckFailure("\n".join([str(error), *(say("hint", lang, hint=h) for h in hints)])) from None
