"""Draft catalogue entries from the wrong answers a class shares (`coursegen mistakes propose`).

grader/reporting/proposals.py groups the students whose wrong outputs agree and that no catalogued
mistake explains; `write_drafts` writes, into the folder DIR (replaced only when it holds a
previous proposal, or is empty: `output_problem` says why not):

    DIR/<exercise>-<n>.py   a draft mistake per group: the exercise's definition from one
                            member's submission, decorated with
                            @mistake(target=..., id=..., hint={"en": "", "zh": ""}); the
                            docstring names the students and the checks the group fails
    DIR/proposals.json      [{"exercise", "students", "failing_checks", "distinguishing_checks", "draft"}], draft being the
                            file's name in DIR

The student's code is only read (never run) here: the file is read as the grader reads a
submission (no links followed, size and token limits), and shown only if its sha256 is still the
one graded. The empty hints make a draft refuse to load (the catalogue requires both languages):
the instructor writes them, picks an id, and moves the definition into
solutions/mistakes/<module>.py, where `coursegen verify` proves it like any other mistake.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from grader.course import Course

MARKER = "proposals.json"


def write_drafts(proposals: list, output: Path, submissions: Path | None, course: Course) -> list[dict]:
    """Write one draft per proposal of `course` and the listing into `output` (staged: all or
    nothing); the listing written to proposals.json."""
    from grader.atomic import staged_folder

    listing = []
    counts: dict[str, int] = {}
    with staged_folder(output, label="proposals") as staging:
        for proposal in proposals:
            counts[proposal.exercise] = counts.get(proposal.exercise, 0) + 1
            name = f"{proposal.exercise}-{counts[proposal.exercise]}.py"
            code, note = _member_code(proposal, submissions, course)
            (staging / name).write_text(
                draft_text(proposal, counts[proposal.exercise], code, note, modules_of(course)), encoding="utf-8"
            )
            listing.append(
                {
                    "exercise": proposal.exercise,
                    "students": proposal.students,
                    "failing_checks": proposal.failing_checks,
                    "distinguishing_checks": getattr(proposal, "distinguishing_checks", []),
                    "draft": name,
                }
            )
        (staging / MARKER).write_text(json.dumps(listing, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return listing


def output_problem(output: Path) -> str | None:
    """Why `output` may not be (re)written with proposals, or None."""
    if output.exists() and not output.is_dir():
        return f"{output} exists and is not a folder"
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).is_file():
        return f"{output} is not empty and holds no {MARKER}: not replacing a folder this command did not write"
    return None


def modules_of(course: Course) -> dict[str, str]:
    """The course's exercise names -> their module."""
    return {e.name: e.module for e in course.registry.exercises}


def _member_code(proposal, submissions: Path | None, course: Course) -> tuple[tuple[str, str] | str, str]:
    """The representative's definition of the exercise (with the imports its file makes), and a
    note for the draft when it cannot be shown."""
    from grader.reading.submission import load_submission

    run = proposal.representative
    base = submissions if submissions is not None else Path(".")
    path = Path(run["submission"])
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        return "", f"the submission {run['submission']} was not found (give --submissions, the batch folder)"
    loaded = load_submission(path, course, root=base if not Path(run["submission"]).is_absolute() else None)
    if loaded.fatal or not loaded.code:
        return "", f"the submission {run['submission']} could not be read: {loaded.fatal or 'no code'}"
    if loaded.sha256 != run["sha256"]:
        return "", f"the submission {run['submission']} changed since it was graded"
    modules = frozenset(m.split(".")[0] for m in (*course.preload_modules, *_requirement_modules(course)))
    try:
        return _definition(loaded.code, proposal.exercise, modules), ""
    except LookupError as exc:
        return "", str(exc)


def _requirement_modules(course: Course) -> list[str]:
    """The import names of the course's requirements ("torch>=2" -> "torch")."""
    names = []
    for requirement in course.requirements:
        match = re.match(r"[A-Za-z0-9_.-]+", requirement)
        if match:
            names.append(match.group(0).replace("-", "_").lower())
    return names


def _definition(code: str, name: str, modules: frozenset[str] = frozenset()) -> tuple[str, str]:
    """The imports the last top-level definition of `name` in `code` needs, and that definition,
    both written from the syntax tree (never a line of the student's file copied): the definition
    unparsed without its decorators, comments or anything around it; an import only for a name
    the definition uses, only of a module of the standard library or of `modules` (the course's
    requirements), rewritten as one plain `import` per name. (`code` is already bounded by the
    submission reader's limits.)"""
    tree = ast.parse(code)
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found = node
    if found is None:
        raise LookupError(f"the submission defines no {name}")
    found.decorator_list = []  # the student's decorators are theirs, not the catalogue's
    used = {n.id for n in ast.walk(found) if isinstance(n, ast.Name)}
    imports = []
    for node in tree.body:
        for statement in _imports_of(node, modules):
            bound = statement.rsplit(" ", 1)[-1]
            if bound in used and statement not in imports:
                imports.append(statement)
    return "\n".join(imports), ast.unparse(found)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _imports_of(node: ast.stmt, modules: frozenset[str]) -> list[str]:
    """`node` (a top-level statement) as plain import statements, each binding one name, written
    here from its parsed parts; nothing for any other statement, a relative or star import, or a
    module outside the standard library and `modules`."""

    def allowed(module: str) -> bool:
        parts = module.split(".")
        top = parts[0]
        return all(_IDENTIFIER.match(p) for p in parts) and (top in sys.stdlib_module_names or top in modules)

    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if not allowed(alias.name) or (alias.asname is not None and not _IDENTIFIER.match(alias.asname)):
                continue
            if alias.asname is not None:
                out.append(f"import {alias.name} as {alias.asname}")
            else:
                out.append(f"import {alias.name.split('.')[0]}")
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and allowed(node.module):
        for alias in node.names:
            bound = alias.asname or alias.name
            if alias.name == "*" or not _IDENTIFIER.match(alias.name) or not _IDENTIFIER.match(bound):
                continue
            out.append(f"from {node.module} import {alias.name}" + (f" as {bound}" if alias.asname else ""))
    return out


def draft_text(proposal, number: int, code: tuple[str, str] | str, note: str, modules: Mapping[str, str]) -> str:
    """The draft mistake file of one proposal (`modules`: exercise name -> its module)."""
    module = modules.get(proposal.exercise, "<module>")
    imports, body = code if isinstance(code, tuple) else ("", "")
    students = ", ".join(_one_line(s) for s in proposal.students)
    checks = "\n".join(f"    {_one_line(c)}" for c in proposal.failing_checks)
    source = _one_line(f"{proposal.representative['student']} ({proposal.representative['submission']})")
    ident = f"{proposal.exercise.lower().replace('_', '-')}-proposed-{number}"
    lines = [
        f'"""Proposed mistake of {proposal.exercise}: {len(proposal.students)} students gave the same wrong outputs',
        "on the batch's inputs, and no catalogued mistake explains them.",
        "",
        f"Students: {students}",
        "Failing checks:",
        checks,
        f"Code from: {source}" if not note else f"Code: not shown, {_one_line(note)}",
        "",
        "READ EVERY LINE OF THIS DRAFT BEFORE YOU MOVE OR RUN IT: the definition below is a student's",
        "code (rewritten from its syntax tree: no comment, decorator or other statement of the file",
        "is kept; the imports are written here, one per name it uses, from the standard library and",
        "the course's requirements only). The line `raise SystemExit` below stops this draft from",
        "running as it is; leave it behind when you move the definition.",
        "",
        "To catalogue it: name the misconception, write the hint a student should read in both",
        f"languages, choose an id, and move the decorated definition into solutions/mistakes/{module}.py;",
        "`coursegen verify` then proves that the checks catch it and show the hint. Until both hints",
        "are written, the @mistake decorator refuses this definition.",
        '"""',
        "from __future__ import annotations",
        "",
        'raise SystemExit("a proposed mistake: read it, then move it")',
        "",
    ]
    if imports:
        lines += [imports, ""]
    lines += ["from grader.contract import mistake", "", ""]
    lines += [f'@mistake(target="{proposal.exercise}", id="{ident}", hint={{', '    "en": "",', '    "zh": ""})']
    lines += [body] if body else [f"# {proposal.exercise}: paste the students' definition here"]
    return "\n".join(lines).rstrip() + "\n"


def _one_line(text: object) -> str:
    from grader.textsafe import one_line

    return one_line(str(text)).replace('"""', "'''")
