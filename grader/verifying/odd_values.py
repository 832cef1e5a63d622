"""Verify's odd-value probes: no shape of student value reaches `check_error`.

A check may fail a student's answer only with a message (a wrong value, a refused value); an
unexpected exception in the check is `check_error`, the grader's own fault. The grading session
forgives a check that breaks on a student's value but works on the reference's (it re-runs it and
says the value is unusable); verify proves no check needs that: for every value kind below, one
*probe* submission (trusted, engine-written, graded through the sandbox like any submission)
defines every exercise of the modules being proven, each returning that kind of value, and is
graded with `Job(probe=True)`: the session records a check's own fault as `check_error` with the
check's file:line, which fails verify naming the value kind.

Two families of kinds:
    replacing      the function returns the value whatever it is asked (10**400, None, a string,
                   an object whose every operator raises, a generator, a callable, ...)
    transforming   the function computes the reference's answer, then returns it changed
                   (complex, NaN- or inf-filled, float64, int, non-contiguous, transposed,
                   broadcast with stride 0, 0-d, empty, huge ints in its shape): values that get
                   past a check's first questions (is it a tensor, of the right shape?) and
                   reach its deeper ones
A class exercise is the reference class with its forward (or, for a class that is not an
nn.Module, its public methods) returning the value. Tensor kinds are probed only for a course
that uses torch, array kinds for one that uses numpy. One submission per kind grades every
module at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.course import Course
    from grader.reporting.results import CheckResult


@dataclass(frozen=True)
class OddValue:
    name: str
    says: str  # what the probe returns, as the verify table names it
    family: str  # "replace" | "transform"
    needs: str = ""  # "torch", "numpy" or "" (any course)


KINDS: tuple[OddValue, ...] = (
    OddValue("huge-int", "the int 10**400", "replace"),
    OddValue("huge-negative-int", "the int -10**400", "replace"),
    OddValue("nan", "float('nan')", "replace"),
    OddValue("none", "None", "replace"),
    OddValue("string", "a string", "replace"),
    OddValue("list", "a list of mixed values", "replace"),
    OddValue("dict", "a dict", "replace"),
    OddValue("tuple", "a tuple of ints", "replace"),
    OddValue("complex-number", "the complex number 1+2j", "replace"),
    OddValue("hostile-object", "an object whose __eq__, __bool__, __float__, __len__, ... raise", "replace"),
    OddValue("hostile-callable", "a callable object whose __eq__, __bool__, __float__, __len__, ... raise", "replace"),
    OddValue("generator", "a generator", "replace"),
    OddValue("deep-list", "a list nested 10000 deep", "replace"),
    OddValue("callable", "a function", "replace"),
    OddValue("module", "an nn.Module", "replace", "torch"),
    OddValue("meta-tensor", "a tensor on the meta device", "replace", "torch"),
    OddValue("huge-ints-shaped", "the answer's shape filled with 10**400 (a nested list)", "transform"),
    OddValue("complex", "the answer as complex numbers", "transform"),
    OddValue("nan-filled", "the answer filled with NaN", "transform"),
    OddValue("inf-filled", "the answer filled with inf", "transform"),
    OddValue("float64", "the answer in float64", "transform"),
    OddValue("float32", "the answer in float32", "transform"),
    OddValue("int", "the answer as int64", "transform"),
    OddValue("bool", "the answer as bool", "transform"),
    OddValue("non-contiguous", "the answer as a non-contiguous (transposed back) tensor", "transform"),
    OddValue("transposed", "the answer with its last two dimensions swapped", "transform"),
    OddValue("expanded", "the answer's first element broadcast to its shape (stride 0)", "transform"),
    OddValue("zero-d", "the answer's first element as a 0-d tensor", "transform"),
    OddValue("empty", "the answer with no rows (first dimension 0)", "transform"),
)
BY_NAME = {kind.name: kind for kind in KINDS}


def kinds_for(course: Course) -> tuple[str, ...]:
    """The kinds probed for `course`: those needing no library, and those of the libraries it uses."""
    return tuple(k.name for k in KINDS if not k.needs or course.uses(k.needs))


def probe_source(course: Course, modules: list[str], kind: str) -> str:
    """The probe submission of `kind` for the exercises of `modules`: their references, each in
    its own namespace, and every exercise name bound to a wrapper returning the odd value."""
    if kind not in BY_NAME:
        raise ValueError(f"unknown odd value {kind!r}; expected one of {', '.join(BY_NAME)}")
    root = Path(course.root)
    sources = {m: (root / "solutions" / f"{m}.py").read_text(encoding="utf-8") for m in modules}
    exports = [(e.name, e.module, e.kind) for m in modules for e in course.registry.exercises_in(m)]
    lines = [
        f"_KIND = {kind!r}",
        f"_REPLACE = {BY_NAME[kind].family == 'replace'!r}",
        f"_SOURCES = {sources!r}",
        _CHILD,
    ]
    for name, module, exercise_kind in exports:
        maker = "_class" if exercise_kind == "class" else "_function"
        lines.append(f"{name} = {maker}({module!r}, {name!r})")
    return "\n".join(lines) + "\n"


def faults(outcomes: dict[str, list[CheckResult]], shown: int = 6) -> list[str]:
    """One sentence per place a check broke on a probe (`check_error`: the check's file:line, the
    error, the value kinds that broke it) and per check that failed a probe without any feedback;
    the first `shown` of them, and how many more."""
    broke: dict[str, dict[str, list[str]]] = {}  # located error -> check -> kinds
    silent: dict[str, list[str]] = {}
    unloaded: dict[str, str] = {}  # kind -> why its probe never reached a check
    for kind, results in outcomes.items():
        for result in results:
            if result.problem.startswith("import_") or result.problem in ("missing", "unreadable"):
                unloaded.setdefault(kind, result.output.strip().splitlines()[0][:200] if result.output.strip() else "")
            elif result.problem == "check_error":
                broke.setdefault(_located(result.output), {}).setdefault(result.name, []).append(kind)
            elif not result.passed and not result.output.strip():
                silent.setdefault(result.name, []).append(kind)
    found = [
        f"{place} in {name}, on {_kinds(kinds)}: check_error"
        for place, checks in broke.items()
        for name, kinds in checks.items()
    ]
    found += [f"{name} fails {_kinds(kinds)} without a message" for name, kinds in silent.items()]
    found = [f"the {kind} probe reached no check: {why}" for kind, why in unloaded.items()] + found
    return found[:shown] + ([f"... and {len(found) - shown} more"] if len(found) > shown else [])


def _kinds(kinds: list[str]) -> str:
    return ", ".join(f"{k} ({BY_NAME[k].says})" if k in BY_NAME else k for k in kinds)


def _located(output: str) -> str:
    """The located line of a probe's check_error feedback ('path:line: ...'), shortened."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    located = next((line for line in lines if re.search(r"\.py:\d+", line)), lines[0] if lines else "")
    return located[:300]


# ---- the probe's own code (runs in the child, like any submission) -----------------------------

_CHILD = r"""
import sys as _sys

_torch = _sys.modules.get("torch")  # only what the course's worker preloaded: a probe imports nothing new
_np = _sys.modules.get("numpy")
_BIG = 10 ** 400

_REFS = {}
for _module, _source in _SOURCES.items():
    _REFS[_module] = {"__name__": "_reference_" + _module}
    exec(compile(_source, _module + ".py", "exec"), _REFS[_module])


def _refuse(*args, **kwargs):
    raise RuntimeError("an odd value refuses every operation")


class _Hostile:
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __bool__ = __float__ = __int__ = __index__ = __complex__ = __len__ = __iter__ = _refuse
    __hash__ = __repr__ = __str__ = __format__ = __getattr__ = __getitem__ = __contains__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __neg__ = __abs__ = _refuse


class _HostileCallable(_Hostile):
    __call__ = _refuse


def _deep():
    value = []
    for _ in range(10000):
        value = [value]
    return value


def _filled(shape):
    return [_filled(shape[1:]) for _ in range(shape[0])] if shape else _BIG


def _replaced():
    if _KIND == "huge-int":
        return _BIG
    if _KIND == "huge-negative-int":
        return -_BIG
    if _KIND == "nan":
        return float("nan")
    if _KIND == "none":
        return None
    if _KIND == "string":
        return "not an answer " * 4
    if _KIND == "list":
        return [1, 2.5, "x", None]
    if _KIND == "dict":
        return {"value": 1, 2: [3]}
    if _KIND == "tuple":
        return (1, 2)
    if _KIND == "complex-number":
        return complex(1, 2)
    if _KIND == "hostile-object":
        return _Hostile()
    if _KIND == "hostile-callable":
        return _HostileCallable()
    if _KIND == "generator":
        return (i for i in range(3))
    if _KIND == "deep-list":
        return _deep()
    if _KIND == "callable":
        return lambda *args, **kwargs: 0
    if _KIND == "module":
        return _torch.nn.Linear(2, 2)
    if _KIND == "meta-tensor":
        return _torch.zeros(3, device="meta")
    raise ValueError(_KIND)


def _tensor(t):
    if _KIND == "huge-ints-shaped":
        return _filled(list(t.shape)) if t.numel() <= 4096 else _BIG
    if _KIND == "complex":
        wide = t.dtype in (_torch.float64, _torch.complex128, _torch.int64)
        return t.to(_torch.complex128 if wide else _torch.complex64)
    if _KIND in ("nan-filled", "inf-filled"):
        fill = float("nan") if _KIND == "nan-filled" else float("inf")
        dtype = t.dtype if (t.is_floating_point() or t.is_complex()) else _torch.float32
        return _torch.full(t.shape, fill, dtype=dtype)
    if _KIND == "float64":
        return t.to(_torch.complex128 if t.is_complex() else _torch.float64)
    if _KIND == "float32":
        return t.to(_torch.complex64 if t.is_complex() else _torch.float32)
    if _KIND == "int":
        return t.real.to(_torch.int64) if t.is_complex() else t.to(_torch.int64)
    if _KIND == "bool":
        return t != 0
    if _KIND == "non-contiguous":
        return t.transpose(-1, -2).contiguous().transpose(-1, -2) if t.dim() >= 2 else t.repeat(2)[::2]
    if _KIND == "transposed":
        return t.transpose(-1, -2) if t.dim() >= 2 else t
    if _KIND == "expanded":
        return t.reshape(-1)[:1].reshape([1] * t.dim()).expand(t.shape) if t.numel() else t
    if _KIND == "zero-d":
        return t.reshape(-1)[0] if t.numel() else t.new_zeros(())
    if _KIND == "empty":
        return t[:0] if t.dim() else t.reshape(-1)[:0]
    return t


def _array(a):
    if _KIND == "huge-ints-shaped":
        return _filled(list(a.shape)) if a.size <= 4096 else _BIG
    if _KIND == "complex":
        return a.astype(_np.complex128)
    if _KIND in ("nan-filled", "inf-filled"):
        return _np.full(a.shape, _np.nan if _KIND == "nan-filled" else _np.inf)
    if _KIND == "float64":
        return a.astype(_np.float64) if not _np.iscomplexobj(a) else a
    if _KIND == "float32":
        return a.astype(_np.float32) if not _np.iscomplexobj(a) else a.astype(_np.complex64)
    if _KIND == "int":
        return _np.nan_to_num(a.real).astype(_np.int64)
    if _KIND == "bool":
        return a != 0
    if _KIND == "non-contiguous":
        return _np.asfortranarray(a) if a.ndim >= 2 else _np.repeat(a, 2)[::2]
    if _KIND == "transposed":
        return _np.swapaxes(a, -1, -2) if a.ndim >= 2 else a
    if _KIND == "expanded":
        return _np.broadcast_to(a.reshape(-1)[:1].reshape([1] * a.ndim), a.shape) if a.size else a
    if _KIND == "zero-d":
        return _np.asarray(a.reshape(-1)[0]) if a.size else _np.zeros(())
    if _KIND == "empty":
        return a[:0] if a.ndim else a.reshape(-1)[:0]
    return a


def _number(x):
    if _KIND == "huge-ints-shaped":
        return _BIG
    if _KIND == "complex":
        return complex(x, 1)
    if _KIND == "nan-filled":
        return float("nan")
    if _KIND == "inf-filled":
        return float("inf")
    if _KIND in ("float64", "float32"):
        return float(x)
    if _KIND == "int":
        return int(x) if x == x and abs(x) != float("inf") else 0
    if _KIND == "bool":
        return x != 0
    if _KIND == "zero-d" and _torch is not None:
        return _torch.tensor(x)
    return x


def _odd(value):
    if _torch is not None and isinstance(value, _torch.Tensor):
        return _tensor(value)
    if _np is not None and isinstance(value, _np.ndarray):
        return _array(value)
    if type(value) in (int, float):
        return _number(value)
    if type(value) is list:
        return [_odd(v) for v in value]
    if type(value) is tuple:
        return tuple(_odd(v) for v in value)
    if type(value) is dict:
        return {k: _odd(v) for k, v in value.items()}
    return value


def _answer(reference, args, kwargs):
    if _REPLACE:
        return _replaced()
    return _odd(reference(*args, **kwargs))


def _function(module, name):
    reference = _REFS[module][name]

    def probe(*args, **kwargs):
        return _answer(reference, args, kwargs)

    probe.__name__ = probe.__qualname__ = name
    return probe


def _class(module, name):
    base = _REFS[module][name]
    own = "_reference_" + module
    is_module = _torch is not None and issubclass(base, _torch.nn.Module)
    wrapped = {}
    for klass in base.__mro__:
        if klass.__module__ != own:
            continue
        for attribute, method in vars(klass).items():
            if attribute in wrapped or not callable(method):
                continue
            if (is_module and attribute == "forward") or (
                not is_module and (attribute == "__call__" or not attribute.startswith("_"))
            ):
                wrapped[attribute] = _method(method)
    return type(name, (base,), wrapped)


def _method(method):
    def probe(self, *args, **kwargs):
        return _answer(lambda *a, **k: method(self, *a, **k), args, kwargs)

    return probe
"""
