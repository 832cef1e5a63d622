"""Helpers for the notebook tests: reading cells by role, running a kernel, loading the real course."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat

from coursegen.loader import load_course

HERE = Path(__file__).resolve().parent
FIXTURE_COURSE = HERE / "fixtures" / "course"
PROJECT_ROOT = HERE.parents[1]


def read_notebook(data: bytes):
    return nbformat.reads(data.decode("utf-8"), as_version=4)


def cells_with_role(notebook, role: str):
    return [cell for cell in notebook.cells if cell.metadata.get("coursegen", {}).get("role") == role]


def cell_for(notebook, role: str, exercise: str):
    matches = [cell for cell in cells_with_role(notebook, role) if cell.metadata["coursegen"]["exercise"] == exercise]
    assert len(matches) == 1, f"expected one {role} cell for {exercise}, found {len(matches)}"
    return matches[0]


def imported_roots(source: str) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots.add((node.module or "").split(".")[0])
    return roots


def execute(notebook, timeout: int = 120):
    """Run a notebook top to bottom in a real ipykernel; return it with outputs."""
    from nbclient import NotebookClient

    NotebookClient(notebook, timeout=timeout, kernel_name="python3", allow_errors=False).execute()
    return notebook


def execute_one_after_another(*notebooks, timeout: int = 120):
    """Run several notebooks, each top to bottom, one after the other in ONE kernel (a kernel
    start with `import torch` costs seconds). Every notebook starts with its own setup cell and
    (re)defines every name it uses, so what an earlier notebook left behind cannot help it.
    Returns the notebooks with their outputs."""
    import copy

    combined = copy.deepcopy(notebooks[0])
    combined.cells = []
    bounds = []
    for number, notebook in enumerate(notebooks):
        start = len(combined.cells)
        for cell in notebook.cells:
            cell = copy.deepcopy(cell)
            cell.id = f"{number}-{cell.id}"[:64]
            combined.cells.append(cell)
        bounds.append((start, len(combined.cells)))
    execute(combined, timeout=timeout)
    results = []
    for notebook, (start, end) in zip(notebooks, bounds):
        result = copy.deepcopy(notebook)
        for cell, ran in zip(result.cells, combined.cells[start:end]):
            if cell.cell_type == "code":
                cell.outputs = ran.outputs
        results.append(result)
    return results


def printed(cell) -> str:
    return "".join(
        output.get("text", "") for output in cell.get("outputs", []) if output.get("output_type") == "stream"
    )


def real_course():
    """The project's own course (a content error fails the test that needs it)."""
    return load_course(PROJECT_ROOT)
