"""`coursegen upgrade`: migrate a course written for the contract each course used to carry.

Courses made before the contract moved into the engine (grader/contract.py) hold a copy of it:
`exercises/registry.py` defines its own `Exercise` dataclass and lookup tables, and
`solutions/mistakes/__init__.py` the whole mistake machinery, which every catalogue file imports
by the course's module name (`from solutions.mistakes import mistake`). The engine now loads a
course by path under a package of its own, so those imports would find nothing. The upgrade:

    exercises/registry.py            keeps its docstring and EXERCISES; imports Exercise from grader.contract
    solutions/mistakes/__init__.py   keeps its docstring only
    solutions/**/*.py                `from solutions.X import` becomes a relative import (`from .X import`,
                                     `from ..X import` in mistakes/), and
                                     `from solutions.mistakes import mistake` becomes
                                     `from grader.contract import mistake`

Nothing else is touched; every file is rewritten atomically, and a file that cannot be migrated
mechanically is named (file:line) and left as it was, with nothing written.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from grader.atomic import write_atomically
from grader.errors import CoursegenError

_ABSOLUTE = re.compile(r"^(\s*)from\s+(solutions|exercises)((?:\.\w+)*)\s+import\s+(.*)$")
_PLAIN_IMPORT = re.compile(r"^\s*import\s+(solutions|exercises)\b")


class UpgradeError(CoursegenError):
    """A course file the upgrade cannot migrate by itself; the message says where and why."""

    exit_status = 1  # the course's code is wrong, not the tool


@dataclass(frozen=True)
class Change:
    path: Path
    text: str
    why: str


def plan(root: Path) -> list[Change]:
    """The rewrites that migrate the course at `root` (empty when it is up to date); UpgradeError
    when a file cannot be migrated (its Python does not parse, with the parser's message)."""
    try:
        return _plan(Path(root))
    except SyntaxError as exc:
        raise UpgradeError(str(exc)) from None


def _plan(root: Path) -> list[Change]:
    changes: list[Change] = []
    registry = root / "exercises" / "registry.py"
    if registry.is_file():
        text = registry.read_text(encoding="utf-8")
        new = upgraded_registry(text, registry)
        if new != text:
            changes.append(Change(registry, new, "Exercise comes from grader.contract"))
    mistakes_init = root / "solutions" / "mistakes" / "__init__.py"
    if mistakes_init.is_file():
        text = mistakes_init.read_text(encoding="utf-8")
        if "def mistake(" in text or "_REGISTERED" in text:
            changes.append(Change(mistakes_init, _docstring_only(text), "the mistake machinery is the engine's"))
    for path in sorted((root / "solutions").rglob("*.py")):
        if path in (registry, mistakes_init) or "__pycache__" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        new = relative_imports(text, path.relative_to(root))
        if new != text:
            changes.append(Change(path, new, "imports within the course are relative"))
    return changes


def apply(changes: list[Change]) -> None:
    for change in changes:
        write_atomically(change.path, change.text.encode("utf-8"))


def upgraded_registry(text: str, path: Path) -> str:
    """registry.py with its own Exercise dataclass (and lookup tables) replaced by the contract's."""
    tree = ast.parse(text)
    if not any(isinstance(n, ast.ClassDef) and n.name == "Exercise" for n in tree.body):
        return text
    lines = text.splitlines()
    keep: list[str] = []
    docstring = ast.get_docstring(tree, clean=False)
    body = tree.body
    if docstring is not None:
        first = body[0]
        keep.extend(lines[first.lineno - 1 : first.end_lineno])
        body = body[1:]
    keep += ["from __future__ import annotations", "", "from grader.contract import Exercise", ""]
    for node in body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        if isinstance(target, ast.Name) and target.id == "EXERCISES":
            keep += ["", *lines[node.lineno - 1 : node.end_lineno]]
    if not any("EXERCISES" in line for line in keep):
        raise UpgradeError(f"{path}: no EXERCISES assignment to keep")
    return "\n".join(keep).rstrip() + "\n"


def _docstring_only(text: str) -> str:
    tree = ast.parse(text)
    if ast.get_docstring(tree, clean=False) is None:
        return '"""The catalogue of typical mistakes (solutions/mistakes/<module>.py, grader.contract.mistake)."""\n'
    first = tree.body[0]
    return "\n".join(text.splitlines()[first.lineno - 1 : first.end_lineno]) + "\n"


def relative_imports(text: str, shown: Path) -> str:
    """`text` with absolute imports of the course's own packages made relative."""
    depth = len(shown.parts) - 1  # solutions/m.py: 1, solutions/mistakes/m.py: 2
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        match = _ABSOLUTE.match(line.rstrip("\n"))
        if match:
            indent, package, rest, names = match.groups()
            if package == "solutions" and rest == ".mistakes":
                wanted = {name.strip() for name in names.split(",")}
                if not wanted <= {"mistake", "Mistake"}:
                    raise UpgradeError(
                        f"{shown}:{number}: imports {', '.join(sorted(wanted - {'mistake', 'Mistake'}))} from "
                        f"solutions.mistakes, which keeps no code after the upgrade (grader.contract has "
                        f"mistake and Mistake)"
                    )
                out.append(f"{indent}from grader.contract import {names.strip()}\n")
                continue
            if package != shown.parts[0]:
                raise UpgradeError(
                    f"{shown}:{number}: imports {package}{rest} from {shown.parts[0]}/: "
                    f"a course's {shown.parts[0]} may not import its {package} (move the shared code)"
                )
            dots = "." * depth
            module = (rest[1:] if rest else "").strip(".")
            out.append(
                f"{indent}from {dots}{module} import {names}\n" if module else f"{indent}from {dots} import {names}\n"
            )
            continue
        if _PLAIN_IMPORT.match(line):
            raise UpgradeError(f"{shown}:{number}: `{line.strip()}`: write `from .module import name` instead")
        out.append(line)
    return "".join(out)
