"""The question kinds: one module each, and the registry the rest of the engine asks.

`KINDS` lists them in the order error messages name them; `kind_of(name)` is the kind of an item's
or a question's `type`. Adding a kind is one module holding a `QuestionKind` (coursegen.quiz.kinds.base)
and its name in `KINDS` (plus a template partial under templates/questions/ where its page view is
its own); `registered(kind)` adds one for a while (a test's toy kind).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import matching, multiple, numeric, shape, short, single, true_false
from .base import QuestionKind

KINDS: list[QuestionKind] = [
    single.KIND,
    multiple.KIND,
    true_false.KIND,
    numeric.KIND,
    shape.KIND,
    short.KIND,
    matching.KIND,
]


def names() -> list[str]:
    """The `type:` values a hand-written question may have."""
    return [kind.name for kind in KINDS]


def find(name: object) -> QuestionKind | None:
    return next((kind for kind in KINDS if kind.name == name), None)


def kind_of(name: object) -> QuestionKind:
    """The kind called `name`; ValueError when there is none."""
    kind = find(name)
    if kind is None:
        raise ValueError(f"unknown question type {name!r}")
    return kind


@contextmanager
def registered(kind: QuestionKind) -> Iterator[QuestionKind]:
    """`kind` is in the registry inside the `with` block (and no longer after it)."""
    if find(kind.name) is not None:
        raise ValueError(f"a question kind '{kind.name}' is already registered")
    KINDS.append(kind)
    try:
        yield kind
    finally:
        KINDS.remove(kind)
