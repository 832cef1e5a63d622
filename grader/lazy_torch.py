"""torch for code that works with tensors when a course uses them and without torch otherwise.

    from grader.lazy_torch import torch     # instead of `import torch`

`torch.X` is the real `torch.X` once torch is imported (by the course's references, checks or
student code); before that, the type names (`torch.Tensor`, `torch.dtype`, `torch.Size`,
`torch.Generator`, `torch.nn.Module`) are a type nothing is an instance of (no tensor exists
before torch is imported), so `isinstance(value, torch.Tensor)` is False and costs no import.
Any other attribute imports torch (it is needed: the caller computes with it), raising
ImportError where torch is not installed.
"""

from __future__ import annotations

import sys
from typing import Any

_TYPES = frozenset({"Tensor", "dtype", "Size", "Generator", "device"})


class _Absent:
    """A type no value is an instance of: torch's types before torch is imported."""


class _AbsentNN:
    Module = _Absent
    Parameter = _Absent


class _LazyTorch:
    def __getattr__(self, name: str) -> Any:
        module = sys.modules.get("torch")
        if module is None:
            if name in _TYPES:
                return _Absent
            if name == "nn":
                return _AbsentNN
            try:
                import torch as module
            except ImportError:
                raise ImportError(
                    f"torch.{name} is needed, and torch is not installed: a course whose code uses torch "
                    "declares it (`requires:` in content/course.yaml) and installs it"
                ) from None
        return getattr(module, name)

    def __repr__(self) -> str:
        return "<torch, imported when needed>"


torch: Any = _LazyTorch()


def loaded() -> Any:
    """The torch module when it has been imported, else None."""
    return sys.modules.get("torch")
