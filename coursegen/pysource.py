"""Small helpers over Python source shared by the loader, the examples runner, the notebook
writer and the exports: where a line starts, what a module binds at top level."""

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


def top_level_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    """Module-level functions, classes and simply assigned names, by the name they bind."""
    found: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    return found
