"""Comparing a value with the expected one, and the feedback sentence that says how they differ:
nested lists, tuples and dicts of tensors, numpy arrays and numbers (type, length, shape, dtype,
then values within tolerance: the first wrong index, the expected and actual values, the max
error). `compare` writes the sentence; `same` only answers (matching catalogued mistakes)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.feedback import say


def compare(
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
    if is_array(expected):
        if not is_array(actual):
            return say("wrong_type", lang, what=what, actual=kind_of(actual), expected=kind_of(expected))
        return _compare_arrays(actual, expected, atol, rtol, what, lang, check_dtype)
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return say("wrong_type", lang, what=what, actual=kind_of(actual), expected=kind_of(expected))
        return _compare_tensors(actual, expected, atol, rtol, what, lang, expected_dtype, upcast_from, check_dtype)
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return say("wrong_type", lang, what=what, actual=kind_of(actual), expected=kind_of(expected))
        if len(actual) != len(expected):
            return say("wrong_length", lang, what=what, actual=len(actual), expected=len(expected))
        if expected and all(_is_plain_number(e) for e in expected):
            return _compare_number_lists(actual, expected, atol, rtol, what, lang)
        for i, (a, e) in enumerate(zip(actual, expected)):
            problem = compare(a, e, atol, rtol, f"{what}[{i}]", lang, expected_dtype, upcast_from, check_dtype)
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return say("wrong_type", lang, what=what, actual=kind_of(actual), expected=kind_of(expected))
        for key in expected:
            problem = compare(
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
            return say("wrong_type", lang, what=what, actual=kind_of(actual), expected=kind_of(expected))
        if not _numbers_close(actual, expected, atol, rtol):
            shown_actual, shown_expected = format_pair(actual, expected)
            return say(
                "wrong_number",
                lang,
                what=what,
                actual=shown_actual,
                expected=shown_expected,
                difference=describe_difference(actual, expected, _scalar_atol(atol), rtol, lang),
            )
        return None
    if type(actual) is not type(expected) or actual != expected:  # a tensor != "text" is no bool
        return say("wrong_scalar", lang, what=what, actual=_shown(actual), expected=_shown(expected))
    return None


def _shown(value: Any) -> str:
    if isinstance(value, torch.Tensor) or is_array(value):
        return kind_of(value)
    return format_value(value) if isinstance(value, int) else repr(value)[:80]


def _compare_number_lists(
    actual: Sequence, expected: Sequence, atol: Any, rtol: float, what: str, lang: str
) -> str | None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        if not _is_plain_number(a) or (isinstance(e, int) and not isinstance(a, int)):
            return say("wrong_type", lang, what=f"{what}[{i}]", actual=kind_of(a), expected=kind_of(e))
    wrong = [i for i, (a, e) in enumerate(zip(actual, expected)) if not _numbers_close(a, e, atol, rtol)]
    if not wrong:
        return None
    first = wrong[0]
    max_error = max(_difference(actual[i], expected[i]) for i in wrong)
    shown_actual, shown_expected = format_pair(actual[first], expected[first])
    return say(
        "wrong_value",
        lang,
        what=what,
        index=f"[{first}]",
        expected=shown_expected,
        actual=shown_actual,
        difference=describe_difference(actual[first], expected[first], _scalar_atol(atol), rtol, lang),
        count=len(wrong),
        total=len(expected),
        max_error=format_value(max_error),
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
    if actual.is_complex() != expected.is_complex():  # no tolerance makes a complex number a real one
        return say("wrong_dtype", lang, what=what, actual=dtype_name(actual.dtype), expected=dtype_name(want_dtype))
    if expected_dtype is None and upcast_from is not None and expected.dtype == torch.float64:
        want_dtype = upcast_from
    if check_dtype and actual.dtype != want_dtype:
        return say("wrong_dtype", lang, what=what, actual=dtype_name(actual.dtype), expected=dtype_name(want_dtype))
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
                actual=format_value(a[_tuple_index(not_finite)]),
                expected=format_value(e[_tuple_index(not_finite)]),
                count=int((~torch.isfinite(a)).sum()),
                total=a.numel(),
            )
    where = _tuple_index(wrong)
    finite_error = error[wrong & torch.isfinite(error)]
    max_error = float(finite_error.max()) if finite_error.numel() else float("inf")
    shown_actual, shown_expected = format_pair(actual[where], expected[where])
    return say(
        "wrong_value",
        lang,
        what=what,
        index=_first_index(wrong),
        expected=shown_expected,
        actual=shown_actual,
        difference=describe_difference(
            actual[where], expected[where], _atol_at(atol, where, tuple(actual.shape)), rtol, lang
        ),
        count=int(wrong.sum()),
        total=wrong.numel(),
        max_error=format_value(max_error),
    )


def is_array(value: Any) -> bool:
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
            actual=format_value(actual[where]),
            expected=format_value(expected[where]),
            count=int((~numpy.isfinite(actual)).sum()),
            total=int(actual.size),
        )
    finite = error[wrong & numpy.isfinite(error)]
    shown_actual, shown_expected = format_pair(actual[where], expected[where])
    atol_here = float(numpy.broadcast_to(numpy.asarray(atol, dtype=numpy.float64), actual.shape)[where])
    return say(
        "wrong_value",
        lang,
        what=what,
        index=index,
        expected=shown_expected,
        actual=shown_actual,
        difference=describe_difference(
            actual[where], expected[where], atol_here if inexact else 0.0, rtol if inexact else 0.0, lang
        ),
        count=int(wrong.sum()),
        total=int(wrong.size),
        max_error=format_value(float(finite.max()) if finite.size else float("inf")),
    )


def _errors(
    actual: torch.Tensor, expected: torch.Tensor, atol: Any, rtol: float
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """|actual - expected| and the mask of the elements out of tolerance (None when there is none)
    of two tensors of one shape. NaN matches NaN, and an infinity the same infinity. Equal tensors
    (a correct answer computed the reference's way) are told in one pass, with no float64 copy."""
    if actual.dtype == expected.dtype and torch.equal(actual, expected):
        return torch.zeros((), dtype=torch.float64), None
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


def same(actual: Any, expected: Any, atol: Any, rtol: float, check_dtype: bool) -> bool:
    """Whether `compare` would accept `actual`, without writing the feedback (matching mistakes)."""
    if isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor):
        if tuple(actual.shape) != tuple(expected.shape) or (check_dtype and actual.dtype != expected.dtype):
            return False
        if actual.is_complex() != expected.is_complex():
            return False
        return actual.numel() == 0 or _errors(actual, expected, atol, rtol)[1] is None
    return compare(actual, expected, atol, rtol, "", "en", None, None, check_dtype=check_dtype) is None


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


def _as_float(value: Any) -> float:
    """A number as a float; a whole number too large for one (10**400) as an infinity."""
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _difference(a: Any, e: Any) -> float:
    if type(a) is int and type(e) is int:
        return _as_float(abs(a - e))
    return abs(_as_float(a) - _as_float(e))


def _numbers_close(a: Any, e: Any, atol: Any, rtol: float) -> bool:
    if type(a) is int and type(e) is int and a == e:
        return True
    a, e = _as_float(a), _as_float(e)
    if abs(a) == float("inf") and abs(e) != float("inf"):
        return False
    if a == e or (a != a and e != e):
        return True
    tol = float(atol) if not isinstance(atol, torch.Tensor) else float(atol.max())
    return abs(a - e) <= tol + rtol * abs(e)


def _is_plain_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, torch.Tensor)


def kind_of(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {list(value.shape)}"
    if is_array(value):
        return f"a numpy array of shape {list(value.shape)}"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "torch.")


SHOWN_DIGITS = 6  # significant digits a value is shown with, unless more are needed to tell two apart
MAX_DIGITS = 17  # enough for any float64: two different doubles differ at 17 significant digits


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor) or type(value).__module__ == "numpy":
        return value.item()
    return value


def format_pair(actual: Any, expected: Any) -> tuple[str, str]:
    """`actual` and `expected` as feedback shows them: SHOWN_DIGITS significant digits, or as many
    more as it takes (up to MAX_DIGITS) for two numbers that differ to be shown differently
    (1.5707963 against 1.5707964, not "1.5708, expected 1.5708")."""
    a, e = _plain(actual), _plain(expected)
    if isinstance(a, (bool, int)) or isinstance(e, (bool, int)) or a == e:
        return format_value(a), format_value(e)
    if not (isinstance(a, (float, complex)) and isinstance(e, (float, complex))):
        return format_value(a), format_value(e)
    for digits in range(SHOWN_DIGITS, MAX_DIGITS + 1):
        shown = format_value(a, digits), format_value(e, digits)
        if shown[0] != shown[1]:
            return shown
    return format_value(a, MAX_DIGITS), format_value(e, MAX_DIGITS)


def describe_difference(actual: Any, expected: Any, atol: float, rtol: float, lang: str) -> str:
    """The absolute and relative difference of two numbers and the tolerance they were held to,
    in one clause of a feedback sentence."""
    a, e = _plain(actual), _plain(expected)
    try:
        absolute = abs(complex(a) - complex(e))
    except (TypeError, ValueError, OverflowError):
        absolute = float("nan")
    try:  # a whole number past float's range (10**400) has no float magnitude
        magnitude = abs(complex(e)) if isinstance(e, (int, float, complex)) else float("nan")
    except OverflowError:
        magnitude = float("inf")
    relative = absolute / magnitude if magnitude else float("inf")
    tolerance = float(atol) + float(rtol) * (magnitude if magnitude == magnitude else 0.0)
    return say(
        "difference",
        lang,
        absolute=format_value(absolute, 3),
        relative=format_value(relative, 3),
        tolerance=format_value(tolerance, 3),
        atol=format_value(float(atol), 3),
        rtol=format_value(float(rtol), 3),
    )


def _scalar_atol(atol: Any) -> float:
    """A check's atol for one number (a per-element atol: its largest, as _numbers_close uses)."""
    if isinstance(atol, torch.Tensor):
        return float(atol.max())
    if is_array(atol):
        return float(atol.max())
    return float(atol)


def _atol_at(atol: Any, where: tuple[int, ...], shape: tuple[int, ...]) -> float:
    """The atol the element at `where` was held to (atol may be a tensor broadcast to the shape)."""
    if isinstance(atol, torch.Tensor) and atol.dim():
        return float(torch.broadcast_to(atol.to(torch.float64), shape)[where])
    return _scalar_atol(atol)


def format_value(value: Any, digits: int = SHOWN_DIGITS) -> str:
    if isinstance(value, torch.Tensor) or type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    if isinstance(value, int) and abs(value) >= 10**30:  # str() of 10**5000 raises ValueError
        sign = "a negative" if value < 0 else "a"
        return f"{sign} whole number of about {value.bit_length() * 0.30103:.0f} digits"
    if isinstance(value, complex):
        return f"{value.real:.{digits}g}{value.imag:+.{digits}g}j"
    return str(value)
