"""Comparison helpers for the checks in grader/checks (they run in the trusted parent).

    expect_call(candidate, reference, "dot", a, b, atol=1e-5)
        calls the student's function (in the sandbox) and the reference (here, in float64
        where the inputs are floating) and compares type, shape, dtype and values.
    expect_behaviour(candidate, reference, "LinearModel", scenario)
        the same for a class: `scenario(make)` builds an object with `make(*args)` and
        returns what it observed (objects support obj(*a), .get, .set, .parameters, .call).
    expect_close(actual, expected, ...), expect_equal(actual, expected, ...)
        for values already in hand.
    expect_raises(candidate, "dot", ValueError, a, b_of_another_length)
    expect_working(candidate, reference, "dot", a, b)
        the guard of an error-path check (and of a property that only right values can show):
        the function must also compute the right values on an ordinary input, so that no-effort
        code (the identity, zeros, a constant, always raising) earns nothing from it.
    expect_shape(actual, (n, d), what=...), expect_at_least(value, bound, what=..., why=...)
        the parts of a property check that partly-right code may pass (a sign error keeps a
        length) but no-effort code fails: a floating tensor of the right shape, and a quantity
        the exercise fixes whatever the mistake (e.g. how fast the first of several parts changes).

A mismatch raises `CheckFailure`, whose message is the feedback the student reads: the
first wrong index, expected and actual values, the max abs error, and the hint of every
catalogued mistake (solutions/mistakes) of the target whose output matches the student's,
in the student's language (`set_language`, done by the grader's pytest plugin).
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader import trusted_results
from grader.hints import hints_of  # noqa: F401 - re-exported
from grader.feedback import say
from grader.instructor_limit import InstructorTimeout, bounded

from grader.sandbox import CandidateError  # so that `except CandidateError` means the same everywhere


class CheckFailure(AssertionError):
    """A check found a wrong answer. The message is written for the student."""


_language = "en"
_matched: list[str] = []  # ids of the catalogued mistakes matched since the last take_matched_mistakes()


def take_matched_mistakes() -> list[str]:
    """The ids of the catalogued mistakes whose hints were given since the last call (the
    grading driver calls it around every check, to store them in the gradebook)."""
    ids = list(_matched)
    _matched.clear()
    return ids


def _note_matched(mistake: Any) -> None:
    if mistake.id not in _matched:
        _matched.append(mistake.id)


# ---- fingerprints of wrong outputs (grader/fingerprint.py; `coursegen mistakes propose`) ----

_fingerprint: list[str] = []  # the fingerprint of the last failure seen since take_fingerprint()


def _note_fingerprint(kind: str, value: Any = None) -> None:
    from grader.fingerprint import fingerprint

    _fingerprint[:] = [fingerprint(kind, value)]


def take_fingerprint() -> str:
    """The fingerprint of the wrong output that made the last check fail ("" when none was
    seen), computed here in the parent from data already decoded; the grading driver stores it."""
    found = _fingerprint[-1] if _fingerprint else ""
    _fingerprint.clear()
    return found


def set_language(lang: str) -> None:
    """The language of feedback and hints from now on: "en" or "zh"."""
    global _language
    if lang not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', not {lang!r}")
    _language = lang


def current_language() -> str:
    return _language


# ---- calling ---------------------------------------------------------------------------------


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
    input_dtype = _float64_copies(args, kwargs)[2]
    run = _runner(args, kwargs)  # the inputs copied and keyed before the candidate sees them
    actual = _call_candidate(name, lambda: getattr(candidate, name)(*args, **kwargs), run)
    expected = bounded(("reference", name), lambda: run(getattr(reference, name)))
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
        raise CheckFailure("\n".join([say("needs_right_values", _language, name=name), str(failure)])) from None


def expect_shape(actual: Any, shape: tuple[int, ...], *, what: str, floating: bool = True) -> torch.Tensor:
    """`actual` is a tensor of `shape` (of a floating dtype unless `floating` is False): the first
    step of a property check on a tensor."""
    if not isinstance(actual, torch.Tensor):
        _note_fingerprint("value", actual)
        raise CheckFailure(say("wrong_type", _language, what=what, actual=_kind(actual), expected="torch.Tensor"))
    if tuple(actual.shape) != tuple(shape) or (floating and not actual.is_floating_point()):
        _note_fingerprint("value", actual)
    if tuple(actual.shape) != tuple(shape):
        raise CheckFailure(say("wrong_shape", _language, what=what, actual=list(actual.shape), expected=list(shape)))
    if floating and not actual.is_floating_point():
        raise CheckFailure(
            say("wrong_dtype", _language, what=what, actual=_dtype(actual.dtype), expected="torch.float32 / float64")
        )
    return actual


def expect_at_least(value: float, bound: float, *, what: str, why: dict[str, str]) -> None:
    """`value` >= `bound`: a property of a partly-right answer that no-effort code lacks (`why`
    says which, in every feedback language: {"en": ..., "zh": ...}). NaN fails."""
    if not value >= bound:
        _note_fingerprint("value", value)
        raise CheckFailure(
            say("too_small", _language, what=what, actual=_fmt(value), bound=_fmt(bound), why=why[_language])
        )


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
    actual = _call_candidate(name, lambda: scenario(getattr(candidate, name)), lambda impl: scenario(local_class(impl)))
    expected = bounded(("reference", name), lambda: scenario(local_class(getattr(reference, name))))
    redo: Callable[[Callable], Any] = lambda impl: scenario(local_class(impl))  # noqa: E731
    if evidence is not None:
        redo = _confirmed_by(evidence, lambda: evidence(getattr(candidate, name)), redo)
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


def _confirmed_by(
    evidence: Callable[[Callable], Any], students: Callable[[], Any], redo: Callable[[Callable], Any]
) -> Callable[[Callable], Any]:
    """`redo`, for the implementations whose `evidence` equals the student's (asked once, when a
    mistake is first tried); where the student's evidence cannot be had, `redo` as it is."""
    seen: list[Any] = []

    def confirmed(impl: Callable) -> Any:
        if not seen:
            try:
                seen.append(students())
            except Exception:  # noqa: BLE001 - the student's code failed here too: no finer evidence
                seen.append(_NOTHING)
        if seen[0] is _NOTHING:
            return redo(impl)
        try:
            theirs = evidence(local_class(impl))
        except Exception:  # noqa: BLE001 - a mistake that cannot give the evidence does not explain it
            return _NOTHING
        if not _same(seen[0], theirs, 1e-4, 1e-4, check_dtype=False):  # another layout rounds differently
            return _NOTHING
        return redo(impl)

    return confirmed


def expect_raises(
    candidate: Any, name: str, exception: type[BaseException], *args: Any, match: str | None = None, **kwargs: Any
) -> str:
    """The student's `name(*args, **kwargs)` must raise `exception` (checked by its name).

    `match` is a regular expression the error message must contain. Returns the message.
    """
    lang = _language
    wanted = exception.__name__
    try:
        returned = getattr(candidate, name)(*args, **kwargs)
    except CandidateError as error:
        message = str(error)
        raised = _raised_name(message)
        if raised != wanted or (match and not re.search(match, message)):
            _note_fingerprint("raised", raised or "error")
            problem = say("wrong_exception", lang, what=name, expected=wanted, actual=message)
            hints = _hints_for_raising(name, _runner(args, kwargs), raised=raised)
            raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)])) from None
        return message
    _note_fingerprint("returned", returned)
    problem = say("no_exception", lang, what=name, expected=wanted)
    hints = _hints_for_raising(name, _runner(args, kwargs), returned=returned)
    raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)]))


def expect_inputs_unchanged(candidate: Any, reference: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """The student's `name(*args, **kwargs)` leaves its arguments as they were (a contract that
    says "the input is not changed"). The child reports the arguments back after the call and
    they are compared here; the hint of a catalogued mistake that changes them the same way is
    added. Returns the candidate's result."""
    lang = _language
    run = _runner(args, kwargs)
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
    pairs += [(key, kwargs[key], kwargs_after.get(key, _NOTHING)) for key in kwargs]
    for label, before, after in pairs:
        problem = _compare(after, before, 0.0, 0.0, f"{label} after the call", lang, None, None)
        if problem is None:
            continue
        _note_fingerprint("changed", after)
        hints = []
        for mistake in _mistakes_of(name):
            copies = (_copies(args), _copies(kwargs))
            try:
                mistake.obj(*copies[0], **copies[1])
            except Exception:
                continue
            theirs = dict(zip(parameters, copies[0])) | copies[1]
            if label in theirs and _same(after, theirs[label], 0.0, 0.0, check_dtype=True):
                _note_matched(mistake)
                hint = mistake.hint.get(lang) or mistake.hint["en"]
                if hint not in hints:
                    hints.append(hint)
        sentence = say("input_changed", lang, what=name, name=label, problem=problem)
        raise CheckFailure("\n".join([sentence, *(say("hint", lang, hint=h) for h in hints)]))
    return result


_NOTHING = object()


class _Runner:
    """`run(impl)`: impl's result on float64 copies of the check's inputs, computed once per run for
    trusted code (trusted_results). The inputs are copied and keyed at the same moment, here, so
    the key always describes what impl is given; each call gets fresh copies (impl may write in place).
    `run.as_given(impl)`: the same on the inputs in their own dtypes."""

    def __init__(self, args: tuple, kwargs: dict):
        self.key = trusted_results.inputs_key(args, kwargs)
        self._float64 = _float64_copies(args, kwargs)[:2]
        self._given = (_copies(args), _copies(kwargs))

    def __call__(self, impl: Callable) -> Any:
        args, kwargs = self._float64
        return trusted_results.call(impl, self.key, "float64", lambda: impl(*_copies(args), **_copies(kwargs)))

    def as_given(self, impl: Callable) -> Any:
        args, kwargs = self._given
        return trusted_results.call(impl, self.key, "as given", lambda: impl(*_copies(args), **_copies(kwargs)))


def _runner(args: tuple, kwargs: dict) -> _Runner:
    return _Runner(args, kwargs)


def _call_candidate(target: str, call: Callable[[], Any], run: Callable[[Callable], Any]) -> Any:
    """Call the candidate; when it raises an exception that a catalogued mistake of `target`
    also raises on these inputs, fail with that mistake's hint added."""
    try:
        return call()
    except CandidateError as error:
        raised = _raised_name(str(error))
        _note_fingerprint("raised", raised or getattr(error, "kind", "") or "error")
        hints = _hints_for_raising(target, run, raised=raised) if raised else []
        if not hints:
            raise
        lang = _language
        raise CheckFailure("\n".join([str(error), *(say("hint", lang, hint=h) for h in hints)])) from None


def _hints_for_raising(
    target: str, run: Callable[[Callable], Any], *, raised: str | None = None, returned: Any = _NOTHING
) -> list[str]:
    """Hints of the mistakes that behave like the student did: raise the same exception
    type, or return the same value where an exception was expected."""
    hints = []
    for mistake in _mistakes_of(target):
        if not _confirmed(mistake):
            continue
        try:
            produced = bounded(("mistake", mistake.id), lambda: run(mistake.obj))
        except InstructorTimeout:
            continue  # no hint from a mistake that did not return (named by verify and grade)
        except Exception as error:
            same = raised is not None and type(error).__name__ == raised
        else:
            same = returned is not _NOTHING and _same(returned, produced, 1e-5, 1e-5, check_dtype=False)
        if same:
            _note_matched(mistake)
            hint = mistake.hint.get(_language) or mistake.hint["en"]
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
                seen[index] = _behaviour(lambda: getattr(candidate, name)(*_copies(args), **_copies(kwargs)))
            try:  # the mistake's run is bounded like every run of instructor code
                theirs = bounded(
                    ("mistake", mistake.id), lambda: _behaviour(lambda: mistake.obj(*_copies(args), **_copies(kwargs)))
                )
            except InstructorTimeout:
                return False
            mine = seen[index]
            if mine[0] != theirs[0]:
                return False
            if mine[0] == "raised" and mine[1] != theirs[1]:
                return False
            if mine[0] == "value" and not _same(mine[1], theirs[1], 1e-5, 1e-5, check_dtype=False):
                return False
    return True


def _behaviour(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return ("value", call())
    except CandidateError as error:
        return ("raised", _raised_name(str(error)))
    except Exception as error:  # noqa: BLE001 - trusted code raising is what is compared
        return ("raised", type(error).__name__)


def _raised_name(message: str) -> str | None:
    found = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Warning))\b", message)
    return found.group(1) if found else None


def _float64_copies(args: tuple, kwargs: dict) -> tuple[tuple, dict, torch.dtype | None]:
    """Copies of the inputs with floating tensors in float64, and the first floating dtype."""
    seen: list[torch.dtype] = []

    def convert(value: Any) -> Any:
        if _is_array(value):
            return value.copy()  # numpy arrays keep their dtype: the reference sees what the student sees
        if isinstance(value, torch.Tensor):
            if value.is_floating_point():
                seen.append(value.dtype)
                return value.detach().to(torch.float64).clone()
            return value.detach().clone()
        if isinstance(value, (list, tuple)):
            return type(value)(convert(v) for v in value)
        if isinstance(value, dict):
            return {k: convert(v) for k, v in value.items()}
        return value

    new_args = tuple(convert(a) for a in args)
    new_kwargs = {k: convert(v) for k, v in kwargs.items()}
    return new_args, new_kwargs, (seen[0] if seen else None)


# ---- comparing -------------------------------------------------------------------------------


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
    lang = _language
    problem = _compare(actual, expected, atol, rtol, what, lang, expected_dtype, upcast_from)
    if problem is None:
        return
    _note_fingerprint("value", actual)
    hints = matching_hints(target, actual, redo, atol, rtol, redo_as_given, expected) if target and redo else []
    raise CheckFailure("\n".join([problem, *(say("hint", lang, hint=h) for h in hints)]))


def _compare(
    actual: Any,
    expected: Any,
    atol: Any,
    rtol: float,
    what: str,
    lang: str,
    expected_dtype: torch.dtype | None,
    upcast_from: torch.dtype | None,
    check_dtype: bool = True,
) -> str | None:
    """None when `actual` matches `expected`, else one feedback sentence."""
    if _is_array(expected):
        if not _is_array(actual):
            return say("wrong_type", lang, what=what, actual=_kind(actual), expected=_kind(expected))
        return _compare_arrays(actual, expected, atol, rtol, what, lang, check_dtype)
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return say("wrong_type", lang, what=what, actual=_kind(actual), expected=_kind(expected))
        return _compare_tensors(actual, expected, atol, rtol, what, lang, expected_dtype, upcast_from, check_dtype)
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return say("wrong_type", lang, what=what, actual=_kind(actual), expected=_kind(expected))
        if len(actual) != len(expected):
            return say("wrong_length", lang, what=what, actual=len(actual), expected=len(expected))
        if expected and all(_is_plain_number(e) for e in expected):
            return _compare_number_lists(actual, expected, atol, rtol, what, lang)
        for i, (a, e) in enumerate(zip(actual, expected)):
            problem = _compare(a, e, atol, rtol, f"{what}[{i}]", lang, expected_dtype, upcast_from, check_dtype)
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return say("wrong_type", lang, what=what, actual=_kind(actual), expected=_kind(expected))
        for key in expected:
            problem = _compare(
                actual[key],
                expected[key],
                atol,
                rtol,
                f"{what}[{key!r}]",
                lang,
                expected_dtype,
                upcast_from,
                check_dtype,
            )
            if problem:
                return problem
        return None
    if _is_plain_number(expected):
        if (
            not _is_plain_number(actual)
            or isinstance(actual, bool) != isinstance(expected, bool)
            or (isinstance(expected, int) and not isinstance(actual, int))
        ):
            return say("wrong_type", lang, what=what, actual=_kind(actual), expected=_kind(expected))
        if not _numbers_close(actual, expected, atol, rtol):
            return say("wrong_scalar", lang, what=what, actual=_fmt(actual), expected=_fmt(expected))
        return None
    if actual != expected:
        return say("wrong_scalar", lang, what=what, actual=repr(actual)[:80], expected=repr(expected)[:80])
    return None


def _compare_number_lists(
    actual: Sequence, expected: Sequence, atol: Any, rtol: float, what: str, lang: str
) -> str | None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        if not _is_plain_number(a) or (isinstance(e, int) and not isinstance(a, int)):
            return say("wrong_type", lang, what=f"{what}[{i}]", actual=_kind(a), expected=_kind(e))
    wrong = [i for i, (a, e) in enumerate(zip(actual, expected)) if not _numbers_close(a, e, atol, rtol)]
    if not wrong:
        return None
    first = wrong[0]
    max_error = max(abs(float(actual[i]) - float(expected[i])) for i in wrong)
    return say(
        "wrong_value",
        lang,
        what=what,
        index=f"[{first}]",
        expected=_fmt(expected[first]),
        actual=_fmt(actual[first]),
        count=len(wrong),
        total=len(expected),
        max_error=_fmt(max_error),
    )


def _compare_tensors(
    actual: torch.Tensor,
    expected: torch.Tensor,
    atol: Any,
    rtol: float,
    what: str,
    lang: str,
    expected_dtype: torch.dtype | None,
    upcast_from: torch.dtype | None,
    check_dtype: bool,
) -> str | None:
    if tuple(actual.shape) != tuple(expected.shape):
        return say("wrong_shape", lang, what=what, actual=list(actual.shape), expected=list(expected.shape))
    want_dtype = expected_dtype or expected.dtype
    if expected_dtype is None and upcast_from is not None and expected.dtype == torch.float64:
        want_dtype = upcast_from
    if check_dtype and actual.dtype != want_dtype:
        return say("wrong_dtype", lang, what=what, actual=_dtype(actual.dtype), expected=_dtype(want_dtype))
    if actual.numel() == 0:
        return None
    error, wrong = _errors(actual, expected, atol, rtol)
    if wrong is None:
        return None
    if actual.is_floating_point() or actual.is_complex() or expected.is_floating_point() or expected.is_complex():
        a, e = _as_float64(actual), _as_float64(expected)
        not_finite = wrong & ~torch.isfinite(a)
        if bool(not_finite.any()):
            index = _first_index(not_finite)
            return say(
                "not_finite",
                lang,
                what=what,
                index=index,
                actual=_fmt(a[_tuple_index(not_finite)]),
                expected=_fmt(e[_tuple_index(not_finite)]),
                count=int((~torch.isfinite(a)).sum()),
                total=a.numel(),
            )
    where = _tuple_index(wrong)
    finite_error = error[wrong & torch.isfinite(error)]
    max_error = float(finite_error.max()) if finite_error.numel() else float("inf")
    return say(
        "wrong_value",
        lang,
        what=what,
        index=_first_index(wrong),
        expected=_fmt(expected[where]),
        actual=_fmt(actual[where]),
        count=int(wrong.sum()),
        total=wrong.numel(),
        max_error=_fmt(max_error),
    )


def _is_array(value: Any) -> bool:
    """A numpy array (numpy is imported by whoever made one: no import here)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def _compare_arrays(
    actual: Any, expected: Any, atol: Any, rtol: float, what: str, lang: str, check_dtype: bool
) -> str | None:
    """numpy arrays: shape, dtype (the expected one), then values as for tensors (NaN matches NaN)."""
    numpy = sys.modules["numpy"]  # imported: two arrays are in hand

    if tuple(actual.shape) != tuple(expected.shape):
        return say("wrong_shape", lang, what=what, actual=list(actual.shape), expected=list(expected.shape))
    if check_dtype and actual.dtype != expected.dtype:
        return say("wrong_dtype", lang, what=what, actual=f"numpy.{actual.dtype}", expected=f"numpy.{expected.dtype}")
    if actual.size == 0:
        return None
    inexact = actual.dtype.kind in "fc" or expected.dtype.kind in "fc"
    if not inexact:
        wrong = actual != expected
        error = numpy.abs(actual.astype(numpy.float64) - expected.astype(numpy.float64))
    else:
        a, e = actual.astype(numpy.complex128), expected.astype(numpy.complex128)
        with numpy.errstate(all="ignore"):
            error = numpy.abs(a - e)
            tolerance = numpy.asarray(atol, dtype=numpy.float64) + rtol * numpy.abs(e)
            same_special = (numpy.isnan(a) & numpy.isnan(e)) | ((a == e) & ~numpy.isfinite(e))
            wrong = ~((error <= tolerance) | same_special)
    if not wrong.any():
        return None
    where = tuple(int(i) for i in numpy.argwhere(wrong)[0])
    index = "[" + ", ".join(str(i) for i in where) + "]"
    if inexact and not numpy.isfinite(actual[where]):
        return say(
            "not_finite",
            lang,
            what=what,
            index=index,
            actual=_fmt(actual[where]),
            expected=_fmt(expected[where]),
            count=int((~numpy.isfinite(actual)).sum()),
            total=int(actual.size),
        )
    finite = error[wrong & numpy.isfinite(error)]
    return say(
        "wrong_value",
        lang,
        what=what,
        index=index,
        expected=_fmt(expected[where]),
        actual=_fmt(actual[where]),
        count=int(wrong.sum()),
        total=int(wrong.size),
        max_error=_fmt(float(finite.max()) if finite.size else float("inf")),
    )


def _errors(
    actual: torch.Tensor, expected: torch.Tensor, atol: Any, rtol: float
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """|actual - expected| and the mask of the elements out of tolerance (None when there is none)
    of two tensors of one shape. NaN matches NaN, and an infinity the same infinity."""
    exact = not (actual.is_floating_point() or actual.is_complex()) and not (
        expected.is_floating_point() or expected.is_complex()
    )
    if exact:
        wrong = actual != expected
        error = (
            (actual.to(torch.float64) - expected.to(torch.float64)).abs()
            if actual.dtype != torch.bool
            else wrong.to(torch.float64)
        )
        return error, (wrong if bool(wrong.any()) else None)
    a, e = _as_float64(actual), _as_float64(expected)
    error = torch.sub(a, e).abs_()
    tolerance = torch.as_tensor(atol, dtype=torch.float64)
    if rtol:
        tolerance = torch.addcmul(tolerance, e.abs(), torch.tensor(rtol, dtype=torch.float64))
    if bool(torch.le(error, tolerance).all()):  # the common case, in few passes over the data
        return error, None
    both_same_special = (torch.isnan(a) & torch.isnan(e)) | ((a == e) & ~torch.isfinite(e))
    wrong = ~((error <= tolerance) | both_same_special)
    return error, (wrong if bool(wrong.any()) else None)


def _same(actual: Any, expected: Any, atol: Any, rtol: float, check_dtype: bool) -> bool:
    """Whether `_compare` would accept `actual`, without writing the feedback (matching mistakes)."""
    if isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor):
        if tuple(actual.shape) != tuple(expected.shape) or (check_dtype and actual.dtype != expected.dtype):
            return False
        return actual.numel() == 0 or _errors(actual, expected, atol, rtol)[1] is None
    return _compare(actual, expected, atol, rtol, "", "en", None, None, check_dtype=check_dtype) is None


def _as_float64(t: torch.Tensor) -> torch.Tensor:
    if t.is_complex():
        return torch.view_as_real(t.to(torch.complex128))
    return t.detach().to(torch.float64)


def _tuple_index(mask: torch.Tensor) -> tuple[int, ...]:
    """The index of the first True element. Unravelled by hand: torch.unravel_index imports
    torch's symbolic-shape machinery (sympy: most of a second) the first time it runs."""
    if not mask.dim():
        return ()
    flat = int(torch.nonzero(mask.reshape(-1))[0])
    index = []
    for size in reversed(mask.shape):
        flat, position = divmod(flat, size)
        index.append(position)
    return tuple(reversed(index))


def _first_index(mask: torch.Tensor) -> str:
    return "[" + ", ".join(str(i) for i in _tuple_index(mask)) + "]"


def _numbers_close(a: Any, e: Any, atol: Any, rtol: float) -> bool:
    a, e = float(a), float(e)
    if a == e or (a != a and e != e):
        return True
    tol = float(atol) if not isinstance(atol, torch.Tensor) else float(atol.max())
    return abs(a - e) <= tol + rtol * abs(e)


def _is_plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, torch.Tensor)


def _kind(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {list(value.shape)}"
    if _is_array(value):
        return f"a numpy array of shape {list(value.shape)}"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "torch.")


def _fmt(value: Any) -> str:
    if isinstance(value, torch.Tensor) or type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, complex):
        return f"{value.real:.6g}{value.imag:+.6g}j"
    return str(value)


# ---- recognising catalogued mistakes ---------------------------------------------------------


_course: Any = None  # the grading session's course (grader.course.Course), set by the grader's pytest plugin


def set_course(course: Any) -> None:
    """The course whose catalogued mistakes the checks recognise: the one the session was handed."""
    global _course
    _course = course


def _mistakes_of(target: str) -> tuple:
    if _course is None:
        raise RuntimeError("no course: checks run in a grading session (grader.session.run_session)")
    return _mistakes_in(_course, target)


@functools.lru_cache(maxsize=None)
def _mistakes_in(course: Any, target: str) -> tuple:
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
    expected: Any = _NOTHING,
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
                produced = bounded(("mistake", mistake.id), lambda: runner(mistake.obj))
            except Exception:  # InstructorTimeout too: no hint from a mistake that did not return
                continue
            if not check_dtype and expected is not _NOTHING and _same(produced, expected, atol, rtol, False):
                continue  # right values: this mistake cannot explain wrong ones
            if _same(actual, produced, atol, rtol, check_dtype):
                matched.append(mistake)
                hint = mistake.hint.get(_language) or mistake.hint["en"]
                if hint not in hints:
                    hints.append(hint)
        if hints:
            for mistake in matched:
                _note_matched(mistake)
            return hints
    return []


# ---- objects built here, with the RemoteObject interface -------------------------------------


class LocalObject:
    """A trusted object (reference or mistake) with the same interface as the sandbox's
    RemoteObject: obj(*args) calls forward, get/set address attributes by dotted path."""

    def __init__(self, obj: Any):
        self._obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _detached(self._obj(*_copies(args), **_copies(kwargs)))

    def get(self, path: str) -> Any:
        return _detached(_resolve(self._obj, path))

    def set(self, path: str, value: torch.Tensor) -> None:
        target = _resolve(self._obj, path)
        with torch.no_grad():
            target.copy_(value)

    def parameters(self) -> list[tuple[str, list[int]]]:
        return [(name, list(p.shape)) for name, p in self._obj.named_parameters()]

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return _detached(getattr(self._obj, method)(*_copies(args), **_copies(kwargs)))


def local_class(cls: Callable) -> Callable[..., LocalObject]:
    """A factory `make(*args)` building `cls(*args)` here, wrapped as a LocalObject."""
    return lambda *args, **kwargs: LocalObject(cls(*args, **kwargs))


def _resolve(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _copies(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if _is_array(value):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(_copies(v) for v in value)
    if isinstance(value, dict):
        return {k: _copies(v) for k, v in value.items()}
    return value


def _detached(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if _is_array(value):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(_detached(v) for v in value)
    return value
