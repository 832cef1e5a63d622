"""Trusted code (the reference, a catalogued mistake) run on the check's inputs: float64 copies of
floating tensors, or the inputs in their own dtypes (a function), or what a check's scenario observes
with it (a class); each result computed once per run."""

from __future__ import annotations

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
    (make = local_class(impl)), computed once per run for a scenario of the same code on the same
    captured values: every submission of a batch meets the same scenarios, and a class's scenario
    (models built and run) is the costliest trusted code a check runs. A scenario that captures
    anything but plain data (a generator, a function) has no key and runs every time, as does a
    scenario given anything but a class (a recorded or replayed reference, grader/replay).
    `observe.known(impl)`: that result if computed already, else trusted_results.MISSING."""

    def __init__(self, scenario: Callable[[Callable], Any]):
        self.scenario = scenario
        self.key = _captured_key(scenario)
        code = getattr(scenario, "__code__", None)
        self.variant = f"scenario {code.co_filename}:{code.co_firstlineno}:{code.co_qualname}" if code else ""

    def __call__(self, impl: Callable) -> Any:
        compute = lambda: self.scenario(local_class(impl))  # noqa: E731
        return trusted_results.call(impl, self._key(impl), self.variant, compute)

    def known(self, impl: Callable) -> Any:
        return trusted_results.known(impl, self._key(impl), self.variant)

    def _key(self, impl: Callable) -> bytes | None:
        return self.key if isinstance(impl, type) else None


def _captured_key(scenario: Callable) -> bytes | None:
    """A digest of the values a scenario's code captured (closure cells and defaults), or None."""
    try:
        cells = tuple(cell.cell_contents for cell in getattr(scenario, "__closure__", None) or ())
    except ValueError:  # a cell not yet filled
        return None
    defaults = getattr(scenario, "__defaults__", None) or ()
    kwdefaults = getattr(scenario, "__kwdefaults__", None) or {}
    if not hasattr(scenario, "__code__"):
        return None
    return trusted_results.inputs_key((cells, defaults), kwdefaults)


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
