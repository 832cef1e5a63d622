"""Student ids and file names are data: make them safe for every place they are written.

A student controls the names of their files and folders, so a name may be a spreadsheet formula,
carry newlines that fake a report heading, hold HTML, or not be valid UTF-8 at all. Every writer of
CSV, Markdown, HTML or text output passes untrusted names through one of these functions.
"""

from __future__ import annotations

import csv
import html
import io
import os
import re
from typing import Iterable

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


# Where a spreadsheet may split a line into cells besides the comma: a `;` (the separator of
# locales whose decimal mark is a comma), a tab, a `|`. A formula start right after one of them
# would begin a cell of its own in such a spreadsheet, whatever the quoting.
_SEPARATORS = (",", ";", "\t", "|")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: object) -> str:
    """A value for a CSV cell that no spreadsheet runs as a formula (OWASP): a text starting with
    = + - @, a tab or a CR gets a leading ', and so does every part of it that starts so right
    after a separator (`a;=HYPERLINK(...)`); a plain number ("-3", "1e-5") is data and kept."""
    text = value if isinstance(value, str) else str(value)
    text = display_name(text) if isinstance(value, str) else text
    if _PLAIN_NUMBER.fullmatch(text):
        return text
    for separator in _SEPARATORS:
        if separator in text:
            parts = text.split(separator)
            text = separator.join(
                [parts[0]] + ["'" + p if p.lstrip(" ").startswith(_FORMULA_STARTS) else p for p in parts[1:]]
            )
    if text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text


def csv_number(value: float) -> str:
    """A number for a CSV cell, written as is (a negative number is data, not a formula)."""
    return f"{value:g}"


def csv_value(value: object) -> str:
    """Any value of a row: a number (not a bool) as a number, None as an empty cell, the rest
    as text through csv_cell."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value) if isinstance(value, int) else csv_number(value)
    return csv_cell(value)


def csv_text(rows: Iterable[Iterable[object]], lineterminator: str = "\n", delimiter: str = ",") -> str:
    """The CSV (or TSV, delimiter="\t") of `rows`: every cell through csv_value and quoted (a
    spreadsheet that splits on another character still sees one cell). The one writer of every
    CSV the commands produce (gradebook, LMS, quiz, report)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=lineterminator, delimiter=delimiter, quoting=csv.QUOTE_ALL)
    for row in rows:
        writer.writerow([csv_value(cell) for cell in row])
    return out.getvalue()


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
