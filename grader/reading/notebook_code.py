"""The code a notebook submission runs: its `setup` and `exercise` cells (metadata.coursegen.role)
in order, with shell (`!`) and magic (`%`) lines and `get_ipython()` calls replaced by `pass`;
where an exercise's cell is missing or duplicated, the code cells whose top-level statements
define that name (only their imports and definitions). The notebook is read as JSON under bounds
(grader.reading.untrusted_input); nothing of it runs here."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from grader.course import Course
from grader.reading.exercise_names import defined_exercise_names, names_by_pattern
from grader.feedback import Said, said
from grader.reading.untrusted_input import MAX_TOKENS, check_json_bounds, parse_bounded, syntax_message

_SHELL_OR_MAGIC = re.compile(r"^(\s*)(?:[!%]|[A-Za-z_][A-Za-z0-9_]*\s*=\s*[!%])")
_CELL_MAGICS_KEEPING_PYTHON = ("%%time", "%%timeit", "%%capture")

_FUTURE_IMPORT = re.compile(r"^from __future__ import ([A-Za-z_][A-Za-z0-9_, ]*)$", re.MULTILINE)


@dataclass
class NotebookCode:
    """What a notebook gives the grader: `fatal` when it cannot be graded (then nothing else is set)."""

    code: str = ""  # what the child executes
    names: set[str] = field(default_factory=set)  # exercise names its chosen cells define
    exercises: tuple[str, ...] = ()  # the exercises it is graded on (registry order)
    problems: list[Said] = field(default_factory=list)  # what to tell the student
    fatal: Said | None = None


@dataclass
class _Cell:
    number: int  # 1-based, among all cells, as Jupyter shows them
    source: str  # with shell/magic lines replaced by `pass`
    role: str | None
    exercise: str | None
    tree: ast.Module | None
    error: Exception | None


def notebook_code(text: str, course: Course) -> NotebookCode:
    """What a notebook submission runs and defines; raises Refused when its JSON or code is out of bounds."""
    result = NotebookCode()
    check_json_bounds(text)
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        result.fatal = said("not_json", line=exc.lineno, column=exc.colno, message=exc.msg)
        return result
    reason = _notebook_problem(notebook)
    if reason:
        if reason == "old":
            result.fatal = said("old_nbformat", version=notebook.get("nbformat"))
        else:
            result.fatal = said("not_notebook", reason=reason)
        return result
    cells = _code_cells(notebook)
    tagged = [c for c in cells if c.exercise in course.registry.by_name and c.role == "exercise"]
    listed = _listed_exercises(notebook, course)
    wanted = [
        e.name
        for e in course.registry.exercises
        if e.name in listed
        or e.name in {c.exercise for c in tagged}
        or any(e.name in _cell_names(c, course) for c in cells)
    ]
    chosen: dict[int, str] = {c.number: c.source for c in cells if c.role == "setup"}
    for name in wanted:
        own = [c for c in tagged if c.exercise == name]
        if len(own) == 1:
            chosen[own[0].number] = own[0].source
            continue
        defining = [c for c in cells if name in _cell_names(c, course)]
        if not defining:
            result.problems.append(said("no_cell_defines", name=name))
        for cell in defining:
            chosen.setdefault(cell.number, _definitions_only(cell))
    if not any(c.role == "setup" for c in cells):
        for cell in cells:
            if cell.number not in chosen and cell.tree is not None:
                imports = _imports_only(cell)
                if imports:
                    chosen[cell.number] = imports
    for cell in cells:
        if cell.number in chosen and cell.error is not None:
            result.problems.append(syntax_message(cell.error, cell=cell.number))
            del chosen[cell.number]
    futures: list[str] = []

    def take_future(match: re.Match[str]) -> str:
        futures.append(match.group(1))
        return "pass"

    for number in chosen:
        chosen[number] = _FUTURE_IMPORT.sub(take_future, chosen[number])
    header = "".join(
        f"from __future__ import {name}\n"
        for name in dict.fromkeys(n.strip() for group in futures for n in group.split(","))
    )
    result.code = (
        header + "\n\n".join(f"# ---- cell {n} ----\n{chosen[n]}" for n in sorted(chosen)) + ("\n" if chosen else "")
    )
    result.names = set().union(*(_cell_names(c, course) for c in cells if c.number in chosen)) if chosen else set()
    result.exercises = tuple(wanted)
    return result


def _listed_exercises(notebook: dict, course: Course) -> set[str]:
    """The exercises the build wrote into the notebook's metadata.coursegen.exercises."""
    meta = notebook.get("metadata")
    coursegen = meta.get("coursegen") if isinstance(meta, dict) else None
    listed = coursegen.get("exercises") if isinstance(coursegen, dict) else None
    return (
        {name for name in listed if isinstance(name, str) and name in course.registry.by_name}
        if isinstance(listed, list)
        else set()
    )


def _notebook_problem(notebook: object) -> str | None:
    if not isinstance(notebook, dict):
        return "the top level is not a JSON object"
    version = notebook.get("nbformat")
    if isinstance(version, int) and version < 4:
        return "old"
    if "cells" not in notebook:
        return "it has no 'cells' list"
    if not isinstance(notebook["cells"], list) or not all(isinstance(c, dict) for c in notebook["cells"]):
        return "'cells' is not a list of cells"
    return None


def _code_cells(notebook: dict) -> list[_Cell]:
    cells = []
    budget = [MAX_TOKENS]
    for number, raw in enumerate(notebook["cells"], start=1):
        if raw.get("cell_type") != "code":
            continue
        source = raw.get("source", "")
        if isinstance(source, list):  # nbformat: a list of strings; anything else is not code
            source = "".join(part for part in source if isinstance(part, str))
        elif not isinstance(source, str):
            source = ""
        source = clean_cell_source(source)
        meta = raw.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        coursegen = meta.get("coursegen")
        coursegen = coursegen if isinstance(coursegen, dict) else {}
        role, exercise = coursegen.get("role"), coursegen.get("exercise")
        try:
            tree, error = parse_bounded(source, "<cell>", budget), None
        except (SyntaxError, ValueError) as exc:
            tree, error = None, exc
        cells.append(
            _Cell(
                number,
                source,
                role if isinstance(role, str) else None,
                exercise if isinstance(exercise, str) else None,
                tree,
                error,
            )
        )
    return cells


def clean_cell_source(source: str) -> str:
    """Replace shell (`!`), magic (`%`) lines and `get_ipython()` calls by `pass` (same
    indentation, so blocks stay valid). A cell magic other than %%time/%%capture empties the cell."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        if not lines[0].lstrip().startswith(_CELL_MAGICS_KEEPING_PYTHON):
            return ""
        lines = lines[1:]
    cleaned = []
    for line in lines:
        match = _SHELL_OR_MAGIC.match(line)
        if match or "get_ipython(" in line:
            indent = match.group(1) if match else line[: len(line) - len(line.lstrip())]
            cleaned.append(f"{indent}pass  # removed by the grader: {line.strip()[:60]}")
        else:
            cleaned.append(line)
    return "\n".join(cleaned)


def _cell_names(cell: _Cell, course: Course) -> set[str]:
    return defined_exercise_names(cell.tree, course) if cell.tree is not None else names_by_pattern(cell.source, course)


def _definitions_only(cell: _Cell) -> str:
    """The cell's top-level imports, definitions and assignments (no calls, prints, inputs)."""
    if cell.tree is None:
        return cell.source
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)
    return _segments(cell, [n for n in cell.tree.body if isinstance(n, keep)])


def _imports_only(cell: _Cell) -> str:
    if cell.tree is None:
        return ""
    return _segments(cell, [n for n in cell.tree.body if isinstance(n, (ast.Import, ast.ImportFrom))])


def _segments(cell: _Cell, nodes: list[ast.stmt]) -> str:
    lines = cell.source.splitlines()
    parts = []
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        parts.append("\n".join(lines[first - 1 : node.end_lineno]))
    return "\n".join(parts)
