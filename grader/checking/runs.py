"""Trusted code (the reference, a catalogued mistake) run on the check's inputs: float64 copies of
floating tensors, or the inputs in their own dtypes, each result computed once per run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from grader.checking import trusted_results
from grader.checking.instructor_limit import Label, bounded

from .comparison import is_array
from .local_objects import copies


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
