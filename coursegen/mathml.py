"""LaTeX math to MathML, at build time, with a check of every command.

latex2mathml turns an unknown command such as ``\\sofmax`` into an identifier without
complaint, so a typo would reach students as the letters "sofmax". `check_latex`
compares every command against the ones latex2mathml really knows (its command table
plus its symbol table) and reports the unknown ones with their offset in the source.
"""
from __future__ import annotations

import functools
import re

from .memo import memoized

_ENVIRONMENT = re.compile(r"^\\(begin|end)\{([^}]*)\}$")


@functools.lru_cache(maxsize=1)
def known_commands() -> frozenset[str]:
    """Every backslash command latex2mathml converts (commands and symbols)."""
    from latex2mathml import commands, symbols_parser

    known: set[str] = set()
    for value in vars(commands).values():
        if isinstance(value, str):
            candidates = [value]
        elif isinstance(value, (tuple, list, set, frozenset, dict)):
            candidates = list(value)
        else:
            continue
        known.update(c for c in candidates if isinstance(c, str) and c.startswith("\\"))
    known.update(k for k in symbols_parser.SYMBOLS if k.startswith("\\"))
    return frozenset(known)


def _command_offsets(latex: str) -> list[tuple[int, str]]:
    """(offset, command) for every backslash command in the source, skipping `\\text{...}` bodies."""
    found = []
    index = 0
    while index < len(latex):
        if latex[index] != "\\":
            index += 1
            continue
        match = re.compile(r"\\([A-Za-z]+\*?|.)").match(latex, index)
        if not match:
            break
        command = match.group(0)
        found.append((index, command))
        index = match.end()
        if command in ("\\text", "\\mbox", "\\textrm", "\\textbf", "\\textit", "\\texttt", "\\operatorname"):
            body = re.compile(r"\s*\{[^{}]*\}").match(latex, index)
            if body:
                index = body.end()
    return found


@memoized("check_latex", decode=lambda problems: [tuple(p) for p in problems])
def check_latex(latex: str) -> list[tuple[int, str]]:
    """Problems in one formula, as (offset in `latex`, message); empty when it converts cleanly."""
    known = known_commands()
    problems: list[tuple[int, str]] = []
    for offset, command in _command_offsets(latex):
        if command == "\\end":
            continue
        if command == "\\begin":
            env = re.compile(r"\{([^}]*)\}").match(latex, offset + len(command))
            if env and "\\" + env.group(1) not in known:
                problems.append((offset, f"unknown LaTeX environment '{env.group(1)}'"))
            continue
        if command not in known:
            problems.append((offset, f"unknown LaTeX command '{command}' (not supported by the MathML converter)"))
    if problems:
        return problems
    if latex.count("{") - latex.count("\\{") != latex.count("}") - latex.count("\\}"):
        return [(0, "unbalanced braces in math")]
    try:
        to_mathml(latex, display=False)
    except Exception as exc:  # latex2mathml raises its own exception types and a few builtins
        return [(0, f"invalid math: {exc.__class__.__name__}: {exc}".rstrip(": "))]
    return []


@functools.lru_cache(maxsize=4096)
def to_mathml(latex: str, display: bool) -> str:
    """The MathML for one formula (`display=True` for a `$$...$$` block)."""
    from latex2mathml.converter import convert

    return convert(latex.strip(), display="block" if display else "inline")
