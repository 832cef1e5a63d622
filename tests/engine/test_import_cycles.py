"""The engine's modules import one another one way only: no cycle among coursegen/ and grader/
(the course's checks and the `coursegen new` template aside), counting the imports inside
functions too, since a deferred import that closes a cycle is a cycle all the same, and the
imports under `if TYPE_CHECKING:`: they never run, but a module that names another's type while
that one imports it is as tangled as a cycle at run time (a Protocol the caller satisfies breaks it).

The graph is read from the source with ast (nothing is imported), so this test does not depend
on the code it checks."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("coursegen", "grader")
NOT_ENGINE = (("grader", "checks"), ("coursegen", "new_course"))


def engine_modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, whether it is a package's __init__)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if any(parts[: len(prefix)] == prefix for prefix in NOT_ENGINE):
                continue
            is_package = parts[-1] == "__init__"
            modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _imported_names(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every dotted name an import statement in `tree` binds or reads (in functions and in
    TYPE_CHECKING blocks too)."""
    names: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.update(f"{target}.{alias.name}" for alias in node.names)  # a module, or a name in `target`
        stack.extend(ast.iter_child_nodes(node))
    return names


def import_graph() -> dict[str, set[str]]:
    modules = engine_modules()
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges = set()
        for name in _imported_names(ast.parse(path.read_text(encoding="utf-8")), module, is_package):
            while name and name not in modules:  # `from grader.sandbox import Limits` -> grader.sandbox
                name = name.rpartition(".")[0]
            # A module's own packages are always initialised before it: that is no edge of its own.
            if name and name != module and not module.startswith(name + "."):
                edges.add(name)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_engine_has_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 50  # the whole engine was read
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_deferred_and_a_type_only_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    tree = ast.parse("def f():\n    from . import b\nif TYPE_CHECKING:\n    import c\n")
    assert _imported_names(tree, "pkg.a", False) == {"pkg.b", "c"}
