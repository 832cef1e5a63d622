"""Trusted code (the reference, a catalogued mistake) run on the check's inputs: float64 copies of
floating tensors, or the inputs in their own dtypes (a function), or what a check's scenario observes
with it (a class); each result computed once per run."""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.checking import trusted_results
from grader.checking.instructor_limit import Label, bounded

from .comparison import is_array
from .local_objects import copies, local_class


class Runner:
    """`run(impl)`: impl's result on float64 copies of the check's inputs, computed once per run for
    trusted code (trusted_results). The inputs are copied and keyed at the same moment, here, so
    the key always describes what impl is given; each call gets fresh copies (impl may write in place).
    `run.as_given(impl)`: the same on the inputs in their own dtypes."""

    def __init__(self, args: tuple, kwargs: dict):
        key = trusted_results.inputs_key(args, kwargs)
        self._float64 = _Inputs(key, "float64", *float64_copies(args, kwargs)[:2])
        self.as_given = _Inputs(key, "as given", copies(args), copies(kwargs))

    def __call__(self, impl: Callable) -> Any:
        return self._float64(impl)

    def known(self, impl: Callable) -> Any:
        return self._float64.known(impl)


class _Inputs:
    """One copy of a check's inputs (float64 or as given): `inputs(impl)` is impl's result on fresh
    copies of them, computed once per run for trusted code; `inputs.known(impl)` that result if
    computed already, else trusted_results.MISSING."""

    def __init__(self, key: bytes | None, variant: str, args: tuple, kwargs: dict):
        self.key, self.variant, self.args, self.kwargs = key, variant, args, kwargs

    def __call__(self, impl: Callable) -> Any:
        compute = lambda: impl(*copies(self.args), **copies(self.kwargs))  # noqa: E731
        return trusted_results.call(impl, self.key, self.variant, compute)

    def known(self, impl: Callable) -> Any:
        return trusted_results.known(impl, self.key, self.variant)


class Observation:
    """`observe(impl)`: what `scenario(make)` observes of the trusted class `impl` built here
    (make = local_class(impl)), computed once per run for the same scenario code reading the same
    values: every submission of a batch meets the same scenarios, and a class's scenario (models
    built and run) is the costliest trusted code a check runs. `observe.known(impl)`: that result
    if computed already, else trusted_results.MISSING.

    The key is the scenario's code object and a digest, taken as it runs, of what its code reads:
    its closure's values, its defaults and the plain-data globals it names (so a scenario that
    changes what it captured is keyed by what it was given). A scenario reading anything else that
    is not code (a generator, an object's state, a bound method's `self`) has no key and runs every
    time, as does a scenario given anything but a class (a recorded or replayed reference,
    grader/replay). The rule for a check's author: a scenario observes only the class and those
    values (not globals that only the functions it calls read); one drawing from torch's global
    generator would be kept at its first draw."""

    def __init__(self, scenario: Callable[[Callable], Any]):
        self.scenario = scenario
        code = getattr(scenario, "__code__", None) if inspect.isfunction(scenario) else None
        self.variant = ("scenario", code.co_filename, code.co_qualname, code) if code is not None else None

    def __call__(self, impl: Callable) -> Any:
        compute = lambda: self.scenario(local_class(impl))  # noqa: E731
        return trusted_results.call(impl, self._key(impl), self.variant, compute)

    def known(self, impl: Callable) -> Any:
        return trusted_results.known(impl, self._key(impl), self.variant)

    def _key(self, impl: Callable) -> bytes | None:
        if self.variant is None or not isinstance(impl, type):
            return None
        return _reads_key(self.scenario)


def _reads_key(scenario: Any) -> bytes | None:
    """A digest of what a plain function's code reads besides code (closure cells, defaults, the
    plain-data globals it or its nested code names), or None when one of them is not plain data
    or cannot be read."""
    try:
        cells = tuple(cell.cell_contents for cell in scenario.__closure__ or ())
        names = sorted(_names_read(scenario.__code__) & scenario.__globals__.keys())
        read = {name: scenario.__globals__[name] for name in names}
        globals_read = {name: value for name, value in read.items() if not _is_code(value)}
        return trusted_results.inputs_key(
            (cells, scenario.__defaults__ or (), globals_read), scenario.__kwdefaults__ or {}
        )
    except Exception:  # noqa: BLE001 - an empty cell, a value that refuses to be looked at: not kept
        return None


def _names_read(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # a comprehension's or a nested function's code
            names |= _names_read(const)
    return names


def _is_code(value: Any) -> bool:
    """Functions, classes and modules a scenario names: code, fixed for the run."""
    return inspect.isfunction(value) or inspect.isclass(value) or inspect.ismodule(value) or inspect.isbuiltin(value)


def run_bounded(label: Label, runner: Callable[[Callable], Any], impl: Callable) -> Any:
    """`runner(impl)` within the instructor time limit (instructor_limit.bounded); a result the run
    computed before on these inputs is handed out at once (no instructor code runs, no helper
    thread: most calls of a batch, whose submissions all get the same inputs)."""
    known = getattr(runner, "known", None)
    return bounded(label, lambda: runner(impl), known=(lambda: known(impl)) if known is not None else None)


def float64_copies(args: tuple, kwargs: dict) -> tuple[tuple, dict, torch.dtype | None]:
    """Copies of the inputs with floating tensors in float64, and the first floating dtype."""
    seen: list[torch.dtype] = []

    def convert(value: Any) -> Any:
        if is_array(value):
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
