"""Student ids and file names are data: make them safe for every place they are written.

A student controls the names of their files and folders, so a name may be a spreadsheet formula,
carry newlines that fake a report heading, hold HTML, or not be valid UTF-8 at all. Every writer of
CSV, Markdown, HTML or text output passes untrusted names through one of these functions.
"""

from __future__ import annotations

import html
import os

# OWASP CSV injection: a cell that starts with one of these is read as a formula by spreadsheets.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def display_name(name: str | bytes) -> str:
    """A file name as printable text: undecodable bytes (surrogate-escaped) become \\xNN, controls \\n etc."""
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    out = []
    for char in name:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable() or char == " ":
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def csv_cell(value: object) -> str:
    """A value for a CSV cell that no spreadsheet runs as a formula (a leading ' when it could be one)."""
    text = value if isinstance(value, str) else str(value)
    text = display_name(text) if isinstance(value, str) else text
    if text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text


def csv_number(value: float) -> str:
    """A number for a CSV cell, written as is (a negative number is data, not a formula)."""
    return f"{value:g}"


def markdown_text(value: str) -> str:
    """Inline Markdown that renders as the literal text: one line, HTML and Markdown syntax escaped."""
    text = html.escape(display_name(value), quote=False)
    for char in "\\`*_{}[]()#+-.!|~":  # backslash first, so the escapes added are not escaped again
        text = text.replace(char, "\\" + char)
    return text


def html_text(value: str) -> str:
    """Text for an HTML element or attribute."""
    return html.escape(display_name(value), quote=True)


def one_line(value: str) -> str:
    """Text for a plain-text report line: printable, on one line."""
    return display_name(value)
