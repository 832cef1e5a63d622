"""Objects built here, in the trusted parent, with the sandbox's RemoteObject interface (the
reference's and the mistakes' classes in `expect_behaviour`, grader.running.trusted's candidates), and
copies of values that no callee can change under the caller."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import torch
else:
    from grader.lazy_torch import torch  # imported by the course's code when it uses torch

from .comparison import is_array


class LocalObject:
    """A trusted object (reference or mistake) with the same interface as the sandbox's
    RemoteObject: obj(*args) calls forward, get/set address attributes by dotted path."""

    def __init__(self, obj: Any):
        self._obj = obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return detached(self._obj(*copies(args), **copies(kwargs)))

    def get(self, path: str) -> Any:
        return detached(_resolve(self._obj, path))

    def set(self, path: str, value: torch.Tensor) -> None:
        target = _resolve(self._obj, path)
        with torch.no_grad():
            target.copy_(value)

    def parameters(self) -> list[tuple[str, list[int]]]:
        return [(name, list(p.shape)) for name, p in self._obj.named_parameters()]

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return detached(getattr(self._obj, method)(*copies(args), **copies(kwargs)))


def local_class(cls: Callable) -> Callable[..., LocalObject]:
    """A factory `make(*args)` building `cls(*args)` here, wrapped as a LocalObject."""
    return lambda *args, **kwargs: LocalObject(cls(*args, **kwargs))


def _resolve(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def copies(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if is_array(value):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(copies(v) for v in value)
    if isinstance(value, dict):
        return {k: copies(v) for k, v in value.items()}
    return value


def detached(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if is_array(value):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return type(value)(detached(v) for v in value)
    return value
