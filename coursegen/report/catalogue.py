"""The mistake catalogue as the report needs it (id, target, hint), read from the course's
solutions/mistakes/*.py without importing them: the report then needs no torch (seconds saved),
and reads the catalogue of the course at --root rather than whichever is importable.

Each `@mistake(target=..., id=..., hint={...})` decorator's arguments are literals (the
catalogue's own tests check that every mistake has them), read with ast.literal_eval. Order:
the registry's module order, then definition order, like solutions.mistakes.catalogue().
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Protocol


class CatalogueItem(Protocol):
    """What the report reads of a mistake: a CatalogueEntry or the course's own Mistake."""

    @property
    def id(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def hint(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class CatalogueEntry:
    id: str
    target: str
    module: str
    hint: dict[str, str]


def read_catalogue(root: Path, modules: list[str]) -> list[CatalogueEntry] | None:
    """The catalogue of the course at `root`, or None when it cannot be read statically (then
    the caller imports solutions.mistakes)."""
    folder = Path(root) / "solutions" / "mistakes"
    if not folder.is_dir():
        return None
    entries: list[CatalogueEntry] = []
    for module in modules:
        path = folder / f"{module}.py"
        if not path.is_file():
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, UnicodeDecodeError):
            return None
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "mistake"):
                    continue
                try:
                    values = {k.arg: ast.literal_eval(k.value) for k in decorator.keywords}
                except ValueError:
                    return None
                if not {"id", "target", "hint"} <= set(values):
                    return None
                entries.append(CatalogueEntry(values["id"], values["target"], module, dict(values["hint"])))
    return entries
