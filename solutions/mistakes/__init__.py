"""The catalogue of typical mistakes.

Each mistake is a complete, wrong definition of one exercise (a function or a class),
written the way a student would plausibly get it wrong, and decorated with the hint
that student should read:

    @mistake(target="apply_rope", id="rope-half-split",
             hint={"en": "...", "zh": "..."})
    def apply_rope(x, positions=None, base=10000.0):
        ...

The grader runs a mistake in the parent (it is trusted code) to recognise a student's
output; `coursegen verify` appends `Mistake.source` to the reference module's source to
build a "mistaken submission" and proves the checks catch it and show the hint.
"""
from __future__ import annotations

import importlib
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable

_REGISTERED: list["Mistake"] = []


@dataclass(frozen=True)
class Mistake:
    id: str                 # unique, kebab-case: "rope-half-split"
    target: str             # the exercise name it replaces: "apply_rope"
    module: str             # the exercise module: "rope"
    obj: Any = field(repr=False)   # the wrong function or class
    hint: dict[str, str] = field(repr=False)  # {"en": ..., "zh": ...}

    @property
    def source(self) -> str:
        """The definition without its @mistake decorator, named as the target."""
        lines = textwrap.dedent(inspect.getsource(self.obj)).splitlines()
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(("def ", "class ")))
        return "\n".join(lines[start:]) + "\n"


def mistake(*, target: str, id: str, hint: dict[str, str]) -> Callable[[Any], Any]:
    """Register the decorated definition as a catalogued mistake of `target`."""
    if set(hint) != {"en", "zh"} or not all(hint.values()):
        raise ValueError(f"mistake {id!r}: hint needs non-empty 'en' and 'zh'")

    def register(obj: Any) -> Any:
        if obj.__name__ != target:
            raise ValueError(f"mistake {id!r}: define it as {target!r}, not {obj.__name__!r}")
        module = obj.__module__.rsplit(".", 1)[-1]
        if any(m.id == id for m in _REGISTERED):
            raise ValueError(f"mistake id {id!r} is used twice")
        _REGISTERED.append(Mistake(id=id, target=target, module=module, obj=obj, hint=dict(hint)))
        return obj

    return register


def catalogue(module: str | None = None) -> list[Mistake]:
    """All catalogued mistakes (of one exercise module, if given), in definition order."""
    from exercises.registry import MODULES

    for name in MODULES if module is None else (module,):
        try:
            importlib.import_module(f"solutions.mistakes.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"solutions.mistakes.{name}":
                raise
    return [m for m in _REGISTERED if module is None or m.module == module]


def for_target(target: str) -> list[Mistake]:
    """The catalogued mistakes of one exercise name."""
    from exercises.registry import BY_NAME

    return [m for m in catalogue(BY_NAME[target].module) if m.target == target]
