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
    try:
        return _definition(loaded.code, proposal.exercise), ""
    except LookupError as exc:
        return "", str(exc)


def _definition(code: str, name: str) -> tuple[str, str]:
    """The imports and the last top-level definition of `name` in `code` (already bounded by
    the submission reader's limits)."""
    tree = ast.parse(code)
    lines = code.splitlines()
    imports, found = [], None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            found = node
    if found is None:
        raise LookupError(f"the submission defines no {name}")
    body = "\n".join(lines[found.lineno - 1 : found.end_lineno])  # without the student's decorators
    return "\n".join(dict.fromkeys(imports)), body


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
        "To catalogue it: name the misconception, write the hint a student should read in both",
        f"languages, choose an id, and move the decorated definition into solutions/mistakes/{module}.py;",
        "`coursegen verify` then proves that the checks catch it and show the hint. Until both hints",
        "are written, the @mistake decorator refuses this definition.",
        '"""',
        "from __future__ import annotations",
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
