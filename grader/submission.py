"""Read a submission (.py or .ipynb) into the code the sandboxed child will run.

Nothing here executes the submission: notebooks are read as JSON and code is only parsed
(`ast.parse`) to find which exercise names it defines.

    load_submission(path, course, module=None, lang="en") -> Submission

The exercise names, modules and lessons it is matched against are `course`'s (grader.course.Course).

A `.py` file is graded as the exercise module named by its stem (`vectors.py`), by `module`,
or, when renamed by an LMS (`smith_123_vectors-1.py`), as the module(s) of the exercise names it
defines. A notebook is graded on the exercises listed in its metadata.coursegen.exercises, tagged on
its cells or defined by them; it runs its `setup` and `exercise` cells (metadata.coursegen.role) in order,
with shell (`!`) and magic (`%`) lines and `get_ipython()` calls replaced by `pass`; where an
exercise's cell is missing or duplicated, the code cells whose top-level statements define
that name are used instead (only their imports and definitions). Malformed input gives a
Submission whose `.fatal` is one sentence (it is graded zero).

Everything read here is hostile: the file is opened without following links (every folder
below the batch root and the file itself, `O_NOFOLLOW`), must be a regular file with one name
(a hard link to a reference is refused like a symbolic one) under MAX_BYTES; Python source
is parsed only when its token count is under MAX_TOKENS (so the syntax tree stays within
tens of MB), notebook JSON only when its value count and nesting are under MAX_JSON_VALUES /
MAX_JSON_DEPTH. Any other failure while reading one file (a JSON shape nobody
expected, a recursion or memory error) is that file's zero with a one-line reason, never an
exception out of `load_submission`.
"""

from __future__ import annotations

import ast
import errno
import hashlib
import io
import json
import os
import re
import stat
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import Course
from grader.feedback import say
from grader.jsonshape import shape_of
from grader.textsafe import display_name

MAX_BYTES = 20 * 1024 * 1024
MAX_TOKENS = 100_000  # Python tokens parsed in the grader (~600 bytes of syntax tree each)
MAX_JSON_VALUES = 200_000  # JSON values (objects, arrays, strings, numbers) of one notebook
MAX_JSON_DEPTH = 64  # nesting of a notebook's JSON (nbformat 4 needs about 6)

_SHELL_OR_MAGIC = re.compile(r"^(\s*)(?:[!%]|[A-Za-z_][A-Za-z0-9_]*\s*=\s*[!%])")
_CELL_MAGICS_KEEPING_PYTHON = ("%%time", "%%timeit", "%%capture")
# Jupyter compiles each cell alone, so a cell may start with a __future__ import; in one file
# they must come first: they are moved to the top of the assembled code.
_FUTURE_IMPORT = re.compile(r"^from __future__ import ([A-Za-z_][A-Za-z0-9_, ]*)$", re.MULTILINE)


@dataclass
class Submission:
    path: Path
    kind: str  # "py" | "ipynb" | "other"
    sha256: str
    code: str = ""  # what the child executes
    names: set[str] = field(default_factory=set)  # exercise names it defines
    exercises: tuple[str, ...] = ()  # exercise names to grade (registry order)
    problems: list[str] = field(default_factory=list)  # sentences for the student
    fatal: str | None = None  # set when nothing can run: graded zero


class _Refused(Exception):
    """One sentence saying why a file is not read (a link, not a regular file, too large)."""


def load_submission(
    path: Path | str,
    course: Course,
    module: str | None = None,
    lang: str = "en",
    root: Path | str | None = None,
) -> Submission:
    """Read one submission file of `course`. Raises ValueError only for an unknown `module` name.

    `root` is the batch folder the path lies in: no folder between it and the file may be a link."""
    path = Path(path)
    if module is not None and module not in course.registry.modules:
        raise ValueError(f"unknown exercise module {module!r}; expected one of {', '.join(course.registry.modules)}")
    sub = Submission(path=path, kind=_kind(path), sha256=hashlib.sha256(b"").hexdigest())
    if module is not None:
        sub.exercises = tuple(e.name for e in course.registry.exercises_in(module))
    elif sub.kind == "py" and path.stem in course.registry.modules:
        sub.exercises = tuple(e.name for e in course.registry.exercises_in(path.stem))
    try:
        data = read_untrusted(path, None if root is None else Path(root), lang)
    except _Refused as refused:
        return _unreadable(sub, str(refused), course)
    sub.sha256 = hashlib.sha256(data).hexdigest()
    if sub.kind == "other":
        sub.fatal = say("wrong_suffix", lang, name=display_name(path.name))
        return sub
    try:
        text = data.decode("utf-8-sig")
        del data
        if sub.kind == "py":
            _read_python(sub, text, lang, course)
        else:
            _read_notebook(sub, text, lang, course)
    except UnicodeDecodeError as exc:
        return _unreadable(sub, say("not_utf8", lang, byte=exc.object[exc.start], offset=exc.start), course)
    except _Refused as refused:
        return _unreadable(sub, str(refused), course)
    except (RecursionError, MemoryError) as exc:
        return _unreadable(sub, say("too_complex", lang, what=type(exc).__name__), course)
    except Exception as exc:  # noqa: BLE001 - a shape of input nobody foresaw: this file's zero, not the batch's end
        return _unreadable(sub, say("unreadable", lang, what=type(exc).__name__), course)
    if sub.fatal:
        return _unreadable(sub, sub.fatal, course)
    if not sub.exercises:  # graded zero, still out of the maximum its name suggests
        return _unreadable(
            sub, say("no_exercises", lang, names=", ".join(e.name for e in course.registry.exercises)), course
        )
    return sub


def read_untrusted(path: Path, root: Path | None = None, lang: str = "en") -> bytes:
    """The bytes of a regular file, never through a link: every folder from `root` (or the
    file's own folder) down to the file is opened with O_NOFOLLOW, so a link swapped in
    meanwhile is refused too. Raises _Refused with the sentence for the student."""
    parts: tuple[str, ...]
    if root is None:
        root, parts = path.parent, (path.name,)
    else:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            root, parts = path.parent, (path.name,)
    nofollow = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    shown = display_name(path.name)
    try:
        folder = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _Refused(say("cannot_open", lang, name=shown, reason=exc.strerror or "error")) from None
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=folder)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _Refused(say("symlink", lang, name=display_name(part))) from None
                raise _Refused(say("cannot_open", lang, name=shown, reason=exc.strerror or "error")) from None
            os.close(folder)
            folder = inner
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | nofollow, dir_fd=folder)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise _Refused(say("symlink", lang, name=shown)) from None
            raise _Refused(say("cannot_open", lang, name=shown, reason=exc.strerror or "error")) from None
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Refused(say("not_regular", lang, name=shown))
        if info.st_nlink > 1:  # another name of the same file: maybe a reference on this file system
            raise _Refused(say("hard_link", lang, name=shown, count=info.st_nlink))
        if info.st_size > MAX_BYTES:
            raise _Refused(say("too_large", lang, size=info.st_size / 1e6, limit=MAX_BYTES // (1024 * 1024)))
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_BYTES:
            raise _Refused(say("too_large", lang, size=size / 1e6, limit=MAX_BYTES // (1024 * 1024)))
        return b"".join(chunks)
    except OSError as exc:
        raise _Refused(say("cannot_open", lang, name=shown, reason=exc.strerror or "error")) from None
    finally:
        os.close(fd)


def _check_token_budget(text: str, lang: str, budget: list[int]) -> None:
    """Refuse source whose syntax tree could be large: count its tokens (stopping at the limit)
    before ast.parse builds the tree. `budget` is shared by all cells of one notebook."""
    if 2 * len(text) + 2 < budget[0]:  # at most about one token per character: cheap case
        budget[0] -= 2 * len(text) + 2
        return
    count = 0
    try:
        for _ in tokenize.generate_tokens(io.StringIO(text).readline):
            count += 1
            if count > budget[0]:
                raise _Refused(say("too_many_tokens", lang, limit=MAX_TOKENS))
    except (tokenize.TokenError, SyntaxError):
        pass  # ast.parse reports the syntax error itself
    budget[0] -= count


def _parse(text: str, filename: str, lang: str, budget: list[int]) -> ast.Module:
    _check_token_budget(text, lang, budget)
    try:
        return ast.parse(text, filename=filename)
    except (RecursionError, MemoryError):
        raise SyntaxError("the code is nested too deeply to be read") from None


def _unreadable(sub: Submission, reason: str, course: Course) -> Submission:
    """A file that cannot be read: graded zero, on the exercises its name suggests if any
    (`smith_123_vectors-1.py`, a lesson notebook `dot-product.ipynb`), so that its maximum score
    is still the module's (0/19, not 0/0). Nothing of it runs."""
    sub.fatal = reason
    sub.code = ""
    if not sub.exercises:
        sub.exercises = (
            _exercises_named_in(sub.path.stem, course)
            if sub.kind == "py"
            else (_exercises_of_lesson(sub.path.stem, course) or _exercises_named_in(sub.path.stem, course))
        )
    return sub


def _kind(path: Path) -> str:
    return {".py": "py", ".ipynb": "ipynb"}.get(path.suffix.lower(), "other")


# ---- .py -------------------------------------------------------------------------------------


def _read_python(sub: Submission, text: str, lang: str, course: Course) -> None:
    sub.code = text
    try:
        tree = _parse(text, "submission.py", lang, [MAX_TOKENS])
    except (SyntaxError, ValueError) as exc:
        sub.names = _names_by_pattern(text, course)
        sub.fatal = _syntax_message(exc, lang)
    else:
        sub.names = defined_exercise_names(tree, course)
    if not sub.exercises:
        sub.exercises = _exercises_of_modules_defining(sub.names, course) or _exercises_named_in(sub.path.stem, course)


def _syntax_message(exc: Exception, lang: str, cell: int | None = None) -> str:
    line = getattr(exc, "lineno", None) or 0
    column = getattr(exc, "offset", None) or 0
    message = getattr(exc, "msg", None) or str(exc)
    if cell is None:
        return say("syntax_error", lang, line=line, column=column, message=message)
    return say("cell_syntax_error", lang, cell=cell, line=line, column=column, message=message)


def defined_exercise_names(tree: ast.Module, course: Course) -> set[str]:
    """`course`'s exercise names bound by top-level statements (def, class, assignment, import), also
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
    return names & set(course.registry.by_name)


def _names_by_pattern(text: str, course: Course) -> set[str]:
    """Best effort for code that does not parse: `def name` / `class name` at line start."""
    found = re.findall(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.MULTILINE)
    return set(found) & set(course.registry.by_name)


def _exercises_named_in(stem: str, course: Course) -> tuple[str, ...]:
    """For a renamed file that defines nothing readable (`smith_123_vectors-1.py` with a syntax
    error): the module whose name is one of the words of the file name, if exactly one is."""
    words = set(re.split(r"[^A-Za-z0-9]+", stem.lower()))
    modules = [m for m in course.registry.modules if m in words or m.replace("_", "") in words]
    return tuple(e.name for e in course.registry.exercises_in(modules[0])) if len(modules) == 1 else ()


def _exercises_of_lesson(stem: str, course: Course) -> tuple[str, ...]:
    """For a notebook that cannot be read: the exercises of the lesson its name contains
    (`dot-product.ipynb`, `smith_dot-product (1).ipynb`), read from the course's content/lessons/<id>.yaml."""
    lessons_dir = course.root / "content" / "lessons"
    try:
        lessons = sorted(p.stem for p in lessons_dir.glob("*.yaml"))
    except OSError:
        return ()
    lowered = stem.lower()
    matches = [lesson for lesson in lessons if lesson in lowered]
    if len(matches) != 1:
        return ()
    names = re.findall(
        r"^\s*-\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$",
        _lesson_exercises_block((lessons_dir / f"{matches[0]}.yaml").read_text("utf-8")),
        re.MULTILINE,
    )
    return tuple(e.name for e in course.registry.exercises if e.name in names)


def _lesson_exercises_block(text: str) -> str:
    """The top-level `exercises:` block of a lesson YAML file."""
    found = re.search(r"^exercises:\s*\n((?:[ \t-].*\n?|\n)*)", text, re.MULTILINE)
    return found.group(1) if found else ""


def _exercises_of_modules_defining(names: set[str], course: Course) -> tuple[str, ...]:
    modules = {course.registry.by_name[n].module for n in names}
    return tuple(e.name for e in course.registry.exercises if e.module in modules)


# ---- .ipynb ----------------------------------------------------------------------------------


@dataclass
class _Cell:
    number: int  # 1-based, among all cells, as Jupyter shows them
    source: str  # with shell/magic lines replaced by `pass`
    role: str | None
    exercise: str | None
    tree: ast.Module | None
    error: Exception | None


def _check_json_bounds(text: str, lang: str) -> None:
    """Count the values and the nesting of JSON text before decoding it (grader.jsonshape:
    linear time, strings left out). Malformed text passes: json.loads reports it."""
    values, depth = shape_of(text, MAX_JSON_VALUES)
    if values > MAX_JSON_VALUES:
        raise _Refused(say("json_too_large", lang, limit=MAX_JSON_VALUES))
    if depth > MAX_JSON_DEPTH:
        raise _Refused(say("json_too_deep", lang, limit=MAX_JSON_DEPTH))


def _read_notebook(sub: Submission, text: str, lang: str, course: Course) -> None:
    _check_json_bounds(text, lang)
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
    cells = _code_cells(notebook, lang)
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

    def take_future(match: re.Match[str]) -> str:
        futures.append(match.group(1))
        return "pass"

    for number in chosen:
        chosen[number] = _FUTURE_IMPORT.sub(take_future, chosen[number])
    header = "".join(
        f"from __future__ import {name}\n"
        for name in dict.fromkeys(n.strip() for group in futures for n in group.split(","))
    )
    sub.code = (
        header + "\n\n".join(f"# ---- cell {n} ----\n{chosen[n]}" for n in sorted(chosen)) + ("\n" if chosen else "")
    )
    sub.names = set().union(*(_cell_names(c, course) for c in cells if c.number in chosen)) if chosen else set()
    sub.exercises = sub.exercises or tuple(wanted)


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


def _code_cells(notebook: dict, lang: str = "en") -> list[_Cell]:
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
            tree, error = _parse(source, "<cell>", lang, budget), None
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
    return (
        defined_exercise_names(cell.tree, course) if cell.tree is not None else _names_by_pattern(cell.source, course)
    )


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
