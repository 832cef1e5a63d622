"""LaTeX math as plain text that a reader recognises (search index and result snippets).

The formula goes through the same converter as the site (coursegen.mathml.to_mathml), and
the MathML tree is read back as text, so structure the converter understands is kept and no
LaTeX command name can leak through:

    R(a) = \\begin{pmatrix} \\cos a & -\\sin a \\\\ \\sin a & \\cos a \\end{pmatrix}
        -> R(a) = [[cos a, -sin a], [sin a, cos a]]
    p_v = \\frac{e^{z_v}}{\\sum_{u=0}^{V-1} e^{z_u}}
        -> p_v = e^(z_v)/(∑_(u=0)^(V-1) e^(z_u))
    \\text{rows } [R, N] \\xrightarrow{\\text{mean}} [R]
        -> rows [R, N] —mean→ [R]

Symbols become their characters (θ, ≤, ·), function names stay words (sin, log),
fractions read `a/b`, scripts `x_i` and `x^2` (bracketed when longer than one word), matrices
as nested lists. The minus sign is written as ASCII "-", which is what a reader types.
"""

from __future__ import annotations

import html
import re
import unicodedata
import xml.etree.ElementTree as ElementTree

from .mathml import to_mathml

_NAMESPACE = re.compile(r"^\{[^}]*\}")
_ROWS = frozenset("math mrow mstyle mpadded menclose mtd merror semantics".split())
_OPENING = frozenset("([{⟨⌈⌊")
_CLOSING = frozenset(")]}⟩⌉⌋")
_PUNCTUATION = frozenset(",;")
_PREFIX = frozenset("∂∇¬√")  # operators that stick to their operand
_TIGHT = frozenset("/")
_ELLIPSES = frozenset("…⋯⋮⋱")
_LARGE_OPERATORS = frozenset("∑∏∫∬∮⋃⋂")
_ARROWS = frozenset("→←↔⟶⟵⟷⇒⇐⇔↦⟹")
_UNDER_BRACES = frozenset("⏟⏞_¯‾")
_ACCENTS = {
    "^": "\u0302",
    "ˆ": "\u0302",
    "~": "\u0303",
    "˜": "\u0303",
    "¯": "\u0304",
    "‾": "\u0304",
    "→": "\u20d7",
    "⃗": "\u20d7",
    ".": "\u0307",
    "˙": "\u0307",
    "¨": "\u0308",
}
_INVISIBLE = {"\u2061": "", "\u2062": "", "\u2063": "", "\u2064": "", "\u00a0": " ", "\u2212": "-"}
_WORD = re.compile(r"[^\W_]+(?:[.'′″][^\W_]*)*['′″]*|\S")
_TERM = re.compile(r"-?[^\s/+=<>≤≥×·-]+")


def readable(latex: str) -> str:
    """The plain text of one formula (see the module docstring). Raises on math the converter rejects."""
    tree = ElementTree.fromstring(to_mathml(latex, display=False))
    return unicodedata.normalize("NFC", _tidy(_text(tree)))


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,;)\]}])", r"\1", text)
    text = re.sub(r"([(\[{])\s+", r"\1", text)
    return text


def _tag(element) -> str:
    return _NAMESPACE.sub("", element.tag)


def _token(element) -> str:
    text = html.unescape(element.text or "")
    for char, replacement in _INVISIBLE.items():
        text = text.replace(char, replacement)
    return text


def _wrap(text: str) -> str:
    """`text` as a subscript or superscript: bare when it is one word (`i`, `model`, `2i`),
    else bracketed (`(2i+1)`, `(z_v)`), with no spaces around + - = inside."""
    text = re.sub(r"\s*([=+\-])\s*", r"\1", _tidy(text))
    if _WORD.fullmatch(text) or _bracketed(text):
        return text
    return f"({text})"


def _operand(text: str) -> str:
    """`text` as a numerator, denominator or the base of a script: bare when it holds no space
    and no operator (`pos`, `10000^(2i/d)`, `e^(z_v)`), else bracketed (`(x + y)`)."""
    text = _tidy(text)
    if _TERM.fullmatch(text) or _bracketed(text):
        return text
    return f"({text})"


def _bracketed(text: str) -> bool:
    return text[:1] in "([" and _balanced_group(text)


def _balanced_group(text: str) -> bool:
    """True when `text` is one bracketed group, such as "(a, b)" (not "(a) + (b)")."""
    depth = 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and index < len(text) - 1:
            return False
    return depth == 0


def _text(element) -> str:
    tag = _tag(element)
    children = list(element)
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        return _token(element)
    if tag == "mspace":
        return " "
    if tag in ("mphantom", "annotation", "annotation-xml", "none", "mprescripts"):
        return ""
    if tag in _ROWS:
        return _row(children)
    if tag == "mtable":
        return "[" + ", ".join(_text(row) for row in children) + "]"
    if tag in ("mtr", "mlabeledtr"):
        cells = children[1:] if tag == "mlabeledtr" else children
        return "[" + ", ".join(_tidy(_text(cell)) for cell in cells) + "]"
    if tag == "mfrac" and len(children) == 2:
        return f"{_operand(_text(children[0]))}/{_operand(_text(children[1]))}"
    if tag == "msqrt":
        return "√" + _wrap(_row(children))
    if tag == "mroot" and len(children) == 2:
        return f"root_{_wrap(_text(children[1]))}({_tidy(_text(children[0]))})"
    if tag == "msub" and len(children) == 2:
        return f"{_operand(_text(children[0]))}_{_wrap(_text(children[1]))}"
    if tag == "msup" and len(children) == 2:
        return f"{_operand(_text(children[0]))}^{_wrap(_text(children[1]))}"
    if tag == "msubsup" and len(children) == 3:
        return f"{_operand(_text(children[0]))}_{_wrap(_text(children[1]))}^{_wrap(_text(children[2]))}"
    if tag == "munder" and len(children) == 2:
        base, under = _text(children[0]), _tidy(_text(children[1]))
        return base if under in _UNDER_BRACES else f"{_operand(base)}_{_wrap(under)}"
    if tag == "mover" and len(children) == 2:
        return _over(_text(children[0]), _tidy(_text(children[1])))
    if tag == "munderover" and len(children) == 3:
        return f"{_operand(_text(children[0]))}_{_wrap(_text(children[1]))}^{_wrap(_text(children[2]))}"
    if tag == "mfenced":
        opening, closing = element.get("open", "("), element.get("close", ")")
        return opening + ", ".join(_tidy(_text(child)) for child in children) + closing
    return _row(children)


def _over(base: str, over: str) -> str:
    base_text = _tidy(base)
    if base_text in _ARROWS:  # \xrightarrow{label}: the label on the arrow
        return f" —{over}{base_text} " if over else f" {base_text} "
    if len(base_text) == 1 and (over in _ACCENTS or over in _ARROWS):  # \hat{y} -> ŷ, \vec{v} -> v⃗
        return base_text + _ACCENTS.get(over, over)
    if over in _UNDER_BRACES:
        return base
    return f"{_operand(base)}^{_wrap(over)}"


def _kind(element) -> str:
    """How a row child joins its neighbours: 'word' (a name, a text), 'letter' (one letter or
    number), 'script' (anything with structure), 'op', 'open', 'close', 'bar' (| without a side),
    'punct', 'stop' (a full stop), 'tight' (a comma between digits), 'space' or 'apply'."""
    tag = _tag(element)
    if tag == "mspace":
        return "space"
    if tag in ("mi", "mn"):
        text = _token(element)
        if text in ("|", "‖"):
            return "bar"
        if text in _ELLIPSES or (len(text) > 1 and text.isalpha()):
            return "word"
        return "letter"
    if tag == "mtext":
        return "word"
    if tag == "mo":
        if (element.text or "") in ("&#x2061;", "\u2061"):
            return "apply"  # function application: the operand decides the spacing
        text = _token(element).strip()
        if not text:
            return "space"
        if text in ("|", "‖"):
            return {"prefix": "open", "postfix": "close"}.get(element.get("form", ""), "bar")
        if text in _OPENING:
            return "open"
        if text in _CLOSING:
            return "close"
        if text in _PUNCTUATION:
            return "punct"
        if text == ".":
            return "stop"
        if text.isalpha():
            return "word"
        return "op"
    if tag == "mtable":
        return "table"
    if tag in ("mrow", "mstyle", "mpadded") and len(element) == 1:
        inner = _kind(element[0])
        return "tight" if inner == "punct" else inner  # {,} in 62{,}832
    if tag == "mrow" and len(element) and _kind(element[0]) == "open":
        return "group"  # \\left( ... \\right): spaced like its opening bracket
    return "script"


def _row(children) -> str:
    """The children of a row joined with the spacing a reader expects: `2i`, `PE_1`, `cos a`,
    `a + b`, `-sin a`, `R(a)`, `(x, y)`, `|i - j|`, `62,832`; brackets around a matrix are dropped
    (the matrix already reads [[...]])."""
    kinds = [_kind(child) for child in children]
    parts: list[str] = []
    previous = "start"
    bars_open = 0
    for index, (child, kind) in enumerate(zip(children, kinds)):
        if kind in ("open", "close") and _next_to_table(kinds, index):
            continue
        if kind == "apply":
            continue
        if kind == "bar":  # a plain | opens the first time and closes the second
            kind = "close" if bars_open else "open"
            bars_open = 1 - bars_open
        text = _text(child)
        if kind in ("op", "punct", "stop", "open", "close", "tight"):
            text = text.strip()
        if kind == "space":
            parts.append(" ")
            continue
        if kind == "op":
            if previous in ("start", "open", "op", "prefix", "punct") and text in "+-±∓":
                parts.append(text)  # a sign, not a subtraction: -sin a, (-1)
                previous = "prefix"
                continue
            if text in _PREFIX:
                parts.append(("" if previous in ("start", "open", "op", "prefix", "punct") else " ") + text)
                previous = "prefix"
                continue
            parts.append(text if text in _TIGHT else f" {text}" if text in _LARGE_OPERATORS else f" {text} ")
            previous = "op"
            continue
        if kind in ("punct", "stop"):
            parts.append(text + " ")
        elif kind in ("close", "tight"):
            parts.append(text)
        elif kind in ("open", "group"):
            parts.append(
                (
                    " "
                    if previous in ("script", "table", "word")
                    and text[:1] not in "(["
                    or previous in ("script", "table")
                    else ""
                )
                + text
            )
        else:
            glue = previous in ("start", "open", "prefix", "op", "punct", "tight")
            glue = glue or (previous == "letter" and kind in ("letter", "script"))
            parts.append(text if glue else " " + text)
        previous = kind
    return "".join(parts)


def _next_to_table(kinds: list[str], index: int) -> bool:
    if kinds[index] == "open":
        return index + 1 < len(kinds) and kinds[index + 1] == "table"
    return index > 0 and kinds[index - 1] == "table"
