"""Read exercise definitions out of exercises/<module>.py and solutions/<module>.py with `ast`.

Notebooks never copy a stub by hand: the stub cell is the exact source of the top-level
definition in the stub module, and the instructor's cell the exact source of the reference
(its `# BEGIN SOLUTION` / `# END SOLUTION` marker lines dropped, private helpers it uses
prepended). So a notebook cannot drift from the modules the grader and `coursegen verify` use.
Nothing here imports the modules: this runs without torch.
"""

from __future__ import annotations

import ast
import sys
from typing import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ContentError, Location
from .pysource import top_level_bindings

SOLUTION_MARKERS = ("# BEGIN SOLUTION", "# END SOLUTION")
ALLOWED_THIRD_PARTY: tuple[str, ...] = ()  # besides the course's `requires:`, notebooks import only the stdlib


@dataclass(frozen=True)
class ParsedModule:
    path: str  # as shown in errors: relative to the course root
    source: str
    tree: ast.Module

    @classmethod
    def read(cls, file: Path, display: str | None = None) -> "ParsedModule":
        path = display or str(file)
        if not file.is_file():
            raise ContentError(
                path, "file not found (every exercise needs a stub in exercises/ and a reference in solutions/)"
            )
        source = file.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise ContentError(
                Location(path, exc.lineno or 0, exc.offset or 0), f"Python syntax error: {exc.msg}"
            ) from None
        return cls(path, source, tree)

    def _segment(self, node: ast.stmt) -> str:
        """The exact source of a top-level statement, decorators included."""
        lines = self.source.splitlines()
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        return "\n".join(lines[first - 1 : node.end_lineno])

    def definitions(self) -> dict[str, ast.stmt]:
        """Top-level functions, classes and simple assignments, by the name they bind."""
        return top_level_bindings(self.tree)

    def definition_source(self, name: str) -> str:
        node = self.definitions().get(name)
        if node is None or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise ContentError(
                self.path, f"no top-level function or class named {name!r} (the exercise registry lists it here)"
            )
        return self._segment(node)

    def imports(self) -> list[tuple[str, int]]:
        """Top-level import statements as (source line, line number), in file order."""
        return [
            (self._segment(node), node.lineno)
            for node in self.tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
        ]


def strip_solution_markers(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_MARKERS)


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def stub_source(stub_module: ParsedModule, name: str) -> str:
    """The stub of one exercise exactly as written in exercises/<module>.py."""
    return stub_module.definition_source(name)


def reference_source(solution_module: ParsedModule, name: str, exercise_names: set[str]) -> str:
    """The reference of one exercise, preceded by the module-level helpers it needs.

    Helpers are top-level definitions of the solution module that the reference uses
    (transitively) and that are not exercises themselves (those have their own cells).
    """
    definitions = solution_module.definitions()
    needed: list[str] = []
    pending = [name]
    while pending:
        current = pending.pop()
        for used in sorted(_names_used(definitions[current])):
            if used in definitions and used not in exercise_names and used != name and used not in needed:
                needed.append(used)
                pending.append(used)
    ordered = [n for n in definitions if n in needed]  # file order, each once
    seen_nodes: list[ast.stmt] = []
    parts = []
    for helper in ordered:
        node = definitions[helper]
        if node not in seen_nodes:
            seen_nodes.append(node)
            parts.append(solution_module._segment(node))
    parts.append(solution_module.definition_source(name))
    return strip_solution_markers("\n\n\n".join(parts))


def _course_imports(requires: Sequence[str]) -> tuple[str, ...]:
    """The modules a notebook may import besides the standard library: those of the course's
    `requires:`."""
    from grader import course_requires

    return tuple(course_requires.import_name(r) for r in requires)


def _allowed_text(allowed: Sequence[str]) -> str:
    return f"{', '.join(allowed)} and the standard library" if allowed else "the standard library"


def check_import_allowed(
    module: ParsedModule, line: str, lineno: int, allowed: Sequence[str] = ALLOWED_THIRD_PARTY
) -> None:
    """Notebook setup cells import only the course's requirements (`requires:` in course.yaml)
    and the standard library."""
    tree = ast.parse(line)
    node = tree.body[0]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            raise ContentError(
                Location(module.path, lineno, 1),
                f"relative imports cannot go into a notebook; import only {_allowed_text(allowed)}",
            )
        roots = [(node.module or "").split(".")[0]]
    else:
        assert isinstance(node, ast.Import), line  # `line` comes from ParsedModule.imports()
        roots = [alias.name.split(".")[0] for alias in node.names]
    for root in roots:
        if root not in allowed and root not in sys.stdlib_module_names:
            raise ContentError(
                Location(module.path, lineno, 1),
                f"imports {root!r}; exercise modules may import only {_allowed_text(allowed)} (notebooks must "
                f"run anywhere; add the distribution to `requires:` in content/course.yaml if the course needs it)",
            )


def setup_imports(modules: list[ParsedModule], requires: Sequence[str]) -> list[str]:
    """The import lines a lesson's notebook needs, in first-seen order, `import torch` always for a
    course that requires torch (`requires`: the course's requirements, course.yaml's `requires:`).

    `from __future__` imports are left out: they must be a file's first statement, and a
    grader that joins the cells of a reordered notebook would then fail to compile it. The
    stubs' annotations (`torch.Tensor | None`) evaluate fine on Python 3.10+ without them.
    """
    allowed = _course_imports(requires)
    lines: list[str] = []
    for module in modules:
        for line, lineno in module.imports():
            check_import_allowed(module, line, lineno, allowed)
            if line not in lines and not line.startswith("from __future__"):
                lines.append(line)
    if "torch" in allowed and "import torch" not in lines:
        lines.insert(0, "import torch")
    return lines
