# cell: never
"""The self-check tools cell of a student notebook, shipped as a real file (linted and typed like
the rest of the engine) and never imported: `coursegen.selfcheck_code.tools_cell` reads its text,
keeps the lines between `# cell: with torch` / `# cell: with numpy` and `# cell: end` only for a
course that requires that library, drops every `# cell: never` region (this docstring and the
declaration of `_MESSAGES`, which the cell defines last, in the notebook's language) and the
marker lines themselves. The rest reaches the notebook byte for byte: edit it as notebook code
(plain Python and the course's libraries, no import of this project).
"""
# cell: end
import math as _math
# cell: with numpy

import numpy
# cell: end
# cell: with torch

import torch
# cell: end


class _SelfCheckFailure(Exception):
    """A self-check that does not hold; its message says where and how."""


def _expect(condition, shown=None):
    if not condition:
        raise _SelfCheckFailure(_MESSAGES["does_not_hold"] if shown is None else _MESSAGES["got"].format(shown=shown))


def _expect_close(actual, expected, atol=1e-5, rtol=1e-4):
    difference = _first_difference(actual, expected, atol, rtol, "result")
    if difference is not None:
        raise _SelfCheckFailure(difference)


def _expect_raises(error_type, function):
    try:
        function()
    except error_type:
        return
    except NotImplementedError:
        raise
    except Exception as exc:
        raise _SelfCheckFailure(_MESSAGES["wrong_raised"].format(
            expected=error_type.__name__, kind=type(exc).__name__, message=exc))
    raise _SelfCheckFailure(_MESSAGES["not_raised"].format(expected=error_type.__name__))


def _first_difference(actual, expected, atol, rtol, where):
    """None when actual matches expected, else one sentence naming the first difference."""
# cell: with torch
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return _MESSAGES["type"].format(where=where, expected="torch.Tensor", actual=type(actual).__name__)
        if tuple(actual.shape) != tuple(expected.shape):
            return _MESSAGES["shape"].format(where=where, expected=list(expected.shape), actual=list(actual.shape))
        if actual.dtype != expected.dtype:
            return _MESSAGES["dtype"].format(where=where, expected=expected.dtype, actual=actual.dtype)
        actual = actual.detach()
        if expected.dtype.is_floating_point:
            same = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = actual == expected
        if bool(same.all()):
            return None
        index = tuple(int(i) for i in (~same).nonzero()[0])
        error = (actual.double() - expected.double()).abs().max().item()
        return _MESSAGES["value"].format(where=where, index=list(index), expected=expected[index].item(),
                                         actual=actual[index].item(), error=f"{error:.3g}")
# cell: end
# cell: with numpy
    if isinstance(expected, numpy.ndarray):
        if not isinstance(actual, numpy.ndarray):
            return _MESSAGES["type"].format(where=where, expected="numpy.ndarray", actual=type(actual).__name__)
        if actual.shape != expected.shape:
            return _MESSAGES["shape"].format(where=where, expected=list(expected.shape), actual=list(actual.shape))
        if actual.dtype != expected.dtype:
            return _MESSAGES["dtype"].format(where=where, expected=expected.dtype, actual=actual.dtype)
        if expected.dtype.kind in "fc":
            same = numpy.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = actual == expected
        if bool(same.all()):
            return None
        index = tuple(int(i) for i in numpy.argwhere(~same)[0])
        error = float(numpy.abs(actual.astype(complex) - expected.astype(complex)).max())
        return _MESSAGES["value"].format(where=where, index=list(index), expected=expected[index].item(),
                                         actual=actual[index].item(), error=f"{error:.3g}")
# cell: end
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return _MESSAGES["type"].format(where=where, expected=type(expected).__name__, actual=type(actual).__name__)
        if len(actual) != len(expected):
            return _MESSAGES["length"].format(where=where, expected=len(expected), actual=len(actual))
        for i, (a, e) in enumerate(zip(actual, expected)):
            difference = _first_difference(a, e, atol, rtol, f"{where}[{i}]")
            if difference is not None:
                return difference
        return None
    if isinstance(expected, bool) or isinstance(expected, int):
        if type(actual) is not type(expected):
            return _MESSAGES["type"].format(where=where, expected=type(expected).__name__, actual=type(actual).__name__)
    if isinstance(expected, float):
        if isinstance(actual, (int, float)) and not isinstance(actual, bool) and _math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol):
            return None
    elif actual == expected:
        return None
    return _MESSAGES["scalar"].format(where=where, expected=repr(expected), actual=repr(actual))


def _run_selfcheck(name, cases, properties):
    """Run the cases, then the properties; print one line: pass, fail (first difference) or not implemented."""
    def explain(exc):
        if isinstance(exc, NotImplementedError):
            frame = exc.__traceback__
            while frame.tb_next is not None:
                frame = frame.tb_next
            raised_in = frame.tb_frame.f_code.co_name
            if raised_in != name and not raised_in.startswith("_") and raised_in not in ("forward", "<lambda>"):
                print(_MESSAGES["todo_other"].format(name=name, other=raised_in))
                return "printed"
            return "todo"
        if isinstance(exc, NameError) and name in str(exc):
            return "undefined"
        return None

    for number, (label, compute, expected, atol, rtol) in enumerate(cases, 1):
        try:
            actual = compute()
        except Exception as exc:
            verdict = explain(exc)
            if verdict == "printed":
                pass
            elif verdict:
                print(_MESSAGES[verdict].format(name=name))
            else:
                detail = _MESSAGES["raised"].format(kind=type(exc).__name__, message=exc)
                print(_MESSAGES["fail_case"].format(name=name, number=number, label=label, detail=detail))
            return
        difference = _first_difference(actual, expected, atol, rtol, "result")
        if difference is not None:
            print(_MESSAGES["fail_case"].format(name=name, number=number, label=label, detail=difference))
            return
    for label, check in properties:
        try:
            check()
        except _SelfCheckFailure as exc:
            print(_MESSAGES["fail_property"].format(name=name, label=label, detail=exc))
            return
        except Exception as exc:
            verdict = explain(exc)
            if verdict == "printed":
                pass
            elif verdict:
                print(_MESSAGES[verdict].format(name=name))
            else:
                detail = _MESSAGES["raised"].format(kind=type(exc).__name__, message=exc)
                print(_MESSAGES["fail_property"].format(name=name, label=label, detail=detail))
            return
    print(_MESSAGES["pass"].format(name=name, cases=len(cases), properties=len(properties)))
# cell: never


_MESSAGES: dict[str, str] = {}  # the cell defines it last, in the notebook's language
# cell: end
