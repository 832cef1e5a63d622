"""Read a submission (.py or .ipynb) into the code the sandboxed child will run.

Nothing here executes the submission: notebooks are read as JSON and code is only parsed
(`ast.parse`) to find which exercise names it defines.

    load_submission(path, module=None, lang="en") -> Submission

A `.py` file is graded as the exercise module named by its stem (`rope.py`), by `module`,
or, when renamed by an LMS (`smith_123_rope-1.py`), as the module(s) of the exercise names it
defines. A notebook is graded on the exercises listed in its metadata.coursegen.exercises, tagged on
its cells or defined by them; it runs its `setup` and `exercise` cells (metadata.coursegen.role) in order,
with shell (`!`) and magic (`%`) lines and `get_ipython()` calls replaced by `pass`; where an
exercise's cell is missing or duplicated, the code cells whose top-level statements define
that name are used instead (only their imports and definitions). Malformed input gives a
Submission whose `.fatal` is one sentence (it is graded zero).
"""
from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from exercises.registry import BY_NAME, EXERCISES, MODULES, exercises_in
from grader.feedback import say

MAX_BYTES = 20 * 1024 * 1024

_SHELL_OR_MAGIC = re.compile(r"^(\s*)(?:[!%]|[A-Za-z_][A-Za-z0-9_]*\s*=\s*[!%])")
_CELL_MAGICS_KEEPING_PYTHON = ("%%time", "%%timeit", "%%capture")
# Jupyter compiles each cell alone, so a cell may start with a __future__ import; in one file
# they must come first: they are moved to the top of the assembled code.
_FUTURE_IMPORT = re.compile(r"^from __future__ import ([A-Za-z_][A-Za-z0-9_, ]*)$", re.MULTILINE)


@dataclass
class Submission:
    path: Path
    kind: str                                   # "py" | "ipynb" | "other"
    sha256: str
    code: str = ""                              # what the child executes
    names: set[str] = field(default_factory=set)          # exercise names it defines
    exercises: tuple[str, ...] = ()             # exercise names to grade (registry order)
    problems: list[str] = field(default_factory=list)     # sentences for the student
    fatal: str | None = None                    # set when nothing can run: graded zero


def load_submission(path: Path | str, module: str | None = None, lang: str = "en") -> Submission:
    """Read one submission file. Raises ValueError only for an unknown `module` name."""
    path = Path(path)
    if module is not None and module not in MODULES:
        raise ValueError(f"unknown exercise module {module!r}; expected one of {', '.join(MODULES)}")
    data = path.read_bytes()
    sub = Submission(path=path, kind=_kind(path), sha256=hashlib.sha256(data).hexdigest())
    if module is not None:
        sub.exercises = tuple(e.name for e in exercises_in(module))
    elif sub.kind == "py" and path.stem in MODULES:
        sub.exercises = tuple(e.name for e in exercises_in(path.stem))
    if sub.kind == "other":
        sub.fatal = say("wrong_suffix", lang, name=path.name)
        return sub
    if len(data) > MAX_BYTES:
        return _unreadable(sub, say("too_large", lang, size=len(data) / 1e6, limit=MAX_BYTES // (1024 * 1024)))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _unreadable(sub, say("not_utf8", lang, byte=data[exc.start], offset=exc.start))
    if sub.kind == "py":
        _read_python(sub, text, lang)
    else:
        _read_notebook(sub, text, lang)
    if not sub.exercises and not sub.fatal:
        sub.fatal = say("no_exercises", lang, names=", ".join(e.name for e in EXERCISES))
    return sub


def _unreadable(sub: Submission, reason: str) -> Submission:
    """A file that cannot be read: graded zero, on the module its name suggests if any
    (`smith_123_rope-1.py`), so that its maximum score is still the module's."""
    sub.fatal = reason
    if sub.kind == "py" and not sub.exercises:
        sub.exercises = _exercises_named_in(sub.path.stem)
    return sub


def _kind(path: Path) -> str:
    return {".py": "py", ".ipynb": "ipynb"}.get(path.suffix.lower(), "other")


# ---- .py -------------------------------------------------------------------------------------

def _read_python(sub: Submission, text: str, lang: str) -> None:
    sub.code = text
    try:
        tree = ast.parse(text, filename=sub.path.name)
    except (SyntaxError, ValueError) as exc:
        sub.names = _names_by_pattern(text)
        sub.fatal = _syntax_message(exc, lang)
    else:
        sub.names = defined_exercise_names(tree)
    if not sub.exercises:
        sub.exercises = _exercises_of_modules_defining(sub.names) or _exercises_named_in(sub.path.stem)


def _syntax_message(exc: Exception, lang: str, cell: int | None = None) -> str:
    line = getattr(exc, "lineno", None) or 0
    column = getattr(exc, "offset", None) or 0
    message = getattr(exc, "msg", None) or str(exc)
    if cell is None:
        return say("syntax_error", lang, line=line, column=column, message=message)
    return say("cell_syntax_error", lang, cell=cell, line=line, column=column, message=message)


def defined_exercise_names(tree: ast.Module) -> set[str]:
    """Exercise names bound by top-level statements (def, class, assignment, import), also
    inside top-level if/try/with blocks."""
    names: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            for block in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.If, ast.Try, ast.With)) and hasattr(node, block):
                    visit(getattr(node, block))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return names & set(BY_NAME)


def _names_by_pattern(text: str) -> set[str]:
    """Best effort for code that does not parse: `def name` / `class name` at line start."""
    found = re.findall(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.MULTILINE)
    return set(found) & set(BY_NAME)


def _exercises_named_in(stem: str) -> tuple[str, ...]:
    """For a renamed file that defines nothing readable (`smith_123_rope-1.py` with a syntax
    error): the module whose name is one of the words of the file name, if exactly one is."""
    words = set(re.split(r"[^A-Za-z0-9]+", stem.lower()))
    modules = [m for m in MODULES if m in words or m.replace("_", "") in words]
    return tuple(e.name for e in exercises_in(modules[0])) if len(modules) == 1 else ()


def _exercises_of_modules_defining(names: set[str]) -> tuple[str, ...]:
    modules = {BY_NAME[n].module for n in names}
    return tuple(e.name for e in EXERCISES if e.module in modules)


# ---- .ipynb ----------------------------------------------------------------------------------

@dataclass
class _Cell:
    number: int            # 1-based, among all cells, as Jupyter shows them
    source: str            # with shell/magic lines replaced by `pass`
    role: str | None
    exercise: str | None
    tree: ast.Module | None
    error: Exception | None


def _read_notebook(sub: Submission, text: str, lang: str) -> None:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        sub.fatal = say("not_json", lang, line=exc.lineno, column=exc.colno, message=exc.msg)
        return
    reason = _notebook_problem(notebook)
    if reason:
        if reason == "old":
            sub.fatal = say("old_nbformat", lang, version=notebook.get("nbformat"))
        else:
            sub.fatal = say("not_notebook", lang, reason=reason)
        return
    cells = _code_cells(notebook)
    tagged = [c for c in cells if c.exercise in BY_NAME and c.role == "exercise"]
    listed = _listed_exercises(notebook)
    wanted = [e.name for e in EXERCISES if e.name in listed or e.name in {c.exercise for c in tagged}
              or any(e.name in _cell_names(c) for c in cells)]
    chosen: dict[int, str] = {c.number: c.source for c in cells if c.role == "setup"}
    for name in wanted:
        own = [c for c in tagged if c.exercise == name]
        if len(own) == 1:
            chosen[own[0].number] = own[0].source
            continue
        defining = [c for c in cells if name in _cell_names(c)]
        if not defining:
            sub.problems.append(say("no_cell_defines", lang, name=name))
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
            sub.problems.append(_syntax_message(cell.error, lang, cell=cell.number))
            del chosen[cell.number]
    futures: list[str] = []
    for number in chosen:
        chosen[number] = _FUTURE_IMPORT.sub(lambda m: futures.append(m.group(1)) or "pass", chosen[number])
    header = "".join(f"from __future__ import {name}\n" for name in dict.fromkeys(
        n.strip() for group in futures for n in group.split(",")))
    sub.code = header + "\n\n".join(f"# ---- cell {n} ----\n{chosen[n]}" for n in sorted(chosen)) + \
        ("\n" if chosen else "")
    sub.names = set().union(*(_cell_names(c) for c in cells if c.number in chosen)) if chosen else set()
    sub.exercises = sub.exercises or tuple(wanted)


def _listed_exercises(notebook: dict) -> set[str]:
    """The exercises the build wrote into the notebook's metadata.coursegen.exercises."""
    meta = notebook.get("metadata")
    coursegen = meta.get("coursegen") if isinstance(meta, dict) else None
    listed = coursegen.get("exercises") if isinstance(coursegen, dict) else None
    return {name for name in listed if isinstance(name, str) and name in BY_NAME} if isinstance(listed, list) else set()


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
    for number, raw in enumerate(notebook["cells"], start=1):
        if raw.get("cell_type") != "code":
            continue
        source = raw.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        source = clean_cell_source(source)
        meta = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
        coursegen = meta.get("coursegen") if isinstance(meta.get("coursegen"), dict) else {}
        try:
            tree, error = ast.parse(source), None
        except (SyntaxError, ValueError) as exc:
            tree, error = None, exc
        cells.append(_Cell(number, source, coursegen.get("role"), coursegen.get("exercise"), tree, error))
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


def _cell_names(cell: _Cell) -> set[str]:
    return defined_exercise_names(cell.tree) if cell.tree is not None else _names_by_pattern(cell.source)


def _definitions_only(cell: _Cell) -> str:
    """The cell's top-level imports, definitions and assignments (no calls, prints, inputs)."""
    if cell.tree is None:
        return cell.source
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
            ast.Assign, ast.AnnAssign)
    return _segments(cell, [n for n in cell.tree.body if isinstance(n, keep)])


def _imports_only(cell: _Cell) -> str:
    return _segments(cell, [n for n in cell.tree.body if isinstance(n, (ast.Import, ast.ImportFrom))])


def _segments(cell: _Cell, nodes: list[ast.stmt]) -> str:
    lines = cell.source.splitlines()
    parts = []
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        parts.append("\n".join(lines[first - 1: node.end_lineno]))
    return "\n".join(parts)
