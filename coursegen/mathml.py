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
    from latex2mathml.converter import Converter

    converter = Converter(display="block" if display else "inline")
    tree = converter.convert_to_element(latex.strip())
    mark_function_applications(tree)
    label_arrows(tree)
    return converter._convert(tree)


def label_arrows(tree) -> None:
    """\\xrightarrow{label}: latex2mathml shifts the label with an `mpadded` (lspace, voffset) that
    browsers honour differently, so the label ran over the next symbols. Made a plain `mover`: a
    stretchy arrow under its label with a little room either side; the arrow is as wide as the label."""
    for mover in list(tree.iter("mover")):
        children = list(mover)
        if len(children) != 2 or children[0].tag != "mstyle" or children[1].tag != "mpadded":
            continue
        arrow = children[0].find("mo")
        if arrow is None:
            continue
        stretchy = mover.makeelement("mo", {"stretchy": "true"})
        stretchy.text = arrow.text
        label = mover.makeelement("mrow", {})
        label.append(mover.makeelement("mspace", {"width": "0.35em"}))
        for part in children[1]:
            if part.tag != "mspace":
                label.append(part)
        label.append(mover.makeelement("mspace", {"width": "0.35em"}))
        for child in children:
            mover.remove(child)
        mover.append(stretchy)
        mover.append(label)


# Names that TeX sets upright as functions (\sin x has a thin space before its operand).
FUNCTION_NAMES = frozenset(
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln lg exp arg deg dim hom ker".split()
)
# Operators with limits: browsers already space them from the operator dictionary.
LIMIT_OPERATORS = frozenset("lim liminf limsup max min sup inf det gcd Pr".split())
FUNCTION_APPLICATION = "&#x2061;"  # invisible operator between a function and its argument
THIN_SPACE = "0.1667em"  # what TeX puts between an operator name and an ordinary operand
_ROW_TAGS = frozenset("math mrow mstyle mtd msqrt mpadded mphantom menclose".split())
_OPENING_FENCES = ("(", "[", "{", "&#x00028;", "&#x0005B;", "&#x0007B;", "&#x02016;", "|", "&#x0007C;")


def mark_function_applications(tree) -> None:
    """Give every function name followed by an operand (\\sin 1, \\log p, \\operatorname{ReLU}(x))
    a function-application operator, plus a thin space when the operand is not in brackets,
    so that "sin 1" is not rendered as "sin1". `tree` is latex2mathml's ElementTree, changed in place."""
    for parent in list(tree.iter()):
        if parent.tag not in _ROW_TAGS:
            continue  # the children of msup, mfrac, ... are positional arguments, not a row
        children = list(parent)
        for index in range(len(children) - 1, -1, -1):
            child = children[index]
            if not _is_function_name(child) or index + 1 >= len(children):
                continue
            operand = children[index + 1]
            if operand.tag == "mo" and not _is_opening_fence(operand):
                continue  # "\\sin = ..." or "\\log," : no operand
            insert_at = index + 1
            apply = parent.makeelement("mo", {})
            apply.text = FUNCTION_APPLICATION
            parent.insert(insert_at, apply)
            if not _is_opening_fence(operand):
                parent.insert(insert_at + 1, parent.makeelement("mspace", {"width": THIN_SPACE}))


def _is_function_name(element) -> bool:
    if element.tag in ("msub", "msup", "msubsup") and len(element):
        return _is_function_name(element[0])
    text = (element.text or "").lstrip("\\")
    if element.tag == "mi" and text in FUNCTION_NAMES:
        element.text = text  # latex2mathml writes \\arg as "\\arg"
        return True
    if element.tag == "mo" and len(text) > 1 and text.isalpha() and text not in LIMIT_OPERATORS:
        element.tag = "mi"  # \\operatorname{ReLU}: a name, not an operator with operator spacing
        return True
    return False


def _is_opening_fence(element) -> bool:
    if element.tag == "mrow" and len(element):
        return _is_opening_fence(element[0])
    return element.tag == "mo" and (element.text or "") in _OPENING_FENCES
