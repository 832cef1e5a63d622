"""Small helpers over Python source shared by the loader, the examples runner, the notebook
writer, `coursegen check`, the site and the exports: where a line starts, what a module binds at
top level, which functions of a check file carry a pytest mark."""

from __future__ import annotations

import ast


def line_offset(text: str, line_index: int) -> int:
    """The character offset where line `line_index` (0-based) of `text` starts (the end of
    the text when it has fewer lines)."""
    offset = 0
    for _ in range(line_index):
        newline = text.find("\n", offset)
        if newline < 0:
            break
        offset = newline + 1
    return offset


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def top_level_definitions(tree: ast.Module) -> dict[str, Definition]:
    """Module-level functions and classes, by name (a name defined twice: its last definition)."""
    return {node.name: node for node in tree.body if isinstance(node, Definition)}


def top_level_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    """Module-level functions, classes and simply assigned names, by the name they bind."""
    found: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, Definition):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    return found
