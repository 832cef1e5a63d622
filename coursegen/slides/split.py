"""What of a Markdown text goes on a slide, and what only into the speaker notes.

A lesson's prose is written to be read; a slide shows the gist and the speaker says the rest.
`gist(source, lang)` keeps a short paragraph or list item whole and cuts a long one after its
first sentence (the whole text then goes into the notes); headings, display math, tables,
code and short lists stay as they are. It works on the Markdown source (the parser tells where
each block and list item is), so what is kept is rendered by the site's own Markdown renderer:
math stays MathML, links stay links.

    gist(source, lang) -> {"blocks": [Markdown of each top-level block kept], "shortened": bool}

Memoised on disk like the site's Markdown (coursegen.memo), under a namespace that changes with
this file, so a no-change rebuild parses nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ..memo import memoized

# A paragraph or list item with more visible characters than this is cut after its first sentence.
LIMIT = {"en": 150, "zh": 70}
# ... unless the first sentence is nearly all of it (one long sentence stays whole).
KEEP_RATIO = 0.8

_VERSION = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:12]

# Spans whose insides never end a sentence: math, code, link targets (masked, same length).
_MASKS = (
    re.compile(r"\$\$.+?\$\$", re.S),
    re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$"),
    re.compile(r"`[^`]*`"),
    re.compile(r"\]\([^)]*\)"),
)
# A sentence ends at . ! ? followed by a space and a capital, digit, opening mark or emphasis.
_END_EN = re.compile(r"[.!?](?=[)\"”’]?\s+[A-Z0-9(\[*_`$“\"])")
_END_ZH = re.compile(r"[。！？]")
_ABBREVIATIONS = (
    "e.g.",
    "i.e.",
    "vs.",
    "etc.",
    "cf.",
    "Fig.",
    "Figs.",
    "Eq.",
    "Eqs.",
    "No.",
    "approx.",
    "et al.",
    "al.",
    "Sec.",
    "resp.",
    "Dr.",
    "Prof.",
)
_LIST_MARKER = re.compile(r"^\s*([-*+]|\d+[.)])\s+")


def gist(source: str, lang: str, *, whole: bool = False) -> dict:
    """{"blocks": [Markdown per top-level block to show], "shortened": whether anything was cut}.
    `whole`: cut nothing (only split into blocks)."""
    return _gist(json.dumps([source, lang, whole]))


@memoized(f"slides_gist_{_VERSION}")
def _gist(source_and_lang: str) -> dict:
    from ..markdown import parser

    source, lang, whole = json.loads(source_and_lang)
    limit = 10**9 if whole else LIMIT.get(lang, LIMIT["en"])
    tokens = parser().parse(source)
    lines = source.splitlines()
    blocks: list[str] = []
    shortened = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.level != 0 or token.nesting == -1 or token.map is None:
            index += 1
            continue
        end = _closing(tokens, index)
        verbatim = "\n".join(lines[token.map[0] : token.map[1]]).strip("\n")
        if token.type == "paragraph_open":
            text = tokens[index + 1].content
            kept = first_sentence(text, lang, limit)
            shortened |= kept != text
            blocks.append(kept)
        elif token.type in ("bullet_list_open", "ordered_list_open") and whole and not _nested_list(tokens, index, end):
            blocks.append(verbatim)  # cut nothing: an item's formula or second paragraph stays with it
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            items = _list_items(tokens, index, end)
            kept_items = [first_sentence(text, lang, limit) if text is not None else None for text, _ in items]
            rebuilt = any(kept is None or kept != text or not simple for (text, simple), kept in zip(items, kept_items))
            if not rebuilt:
                blocks.append(verbatim)
            else:
                shortened = True
                ordered = token.type == "ordered_list_open"
                start = int(token.attrGet("start") or 1) if ordered else 1
                rows = []
                for number, item in enumerate(kept_items, start):
                    marker = f"{number}." if ordered else "-"
                    indented = (item or "").strip().replace("\n", "\n" + " " * (len(marker) + 1))
                    rows.append(f"{marker} {indented}".rstrip())
                blocks.append("\n".join(rows))
        elif token.type == "blockquote_open":
            inner = [t for t in tokens[index:end] if t.type == "inline"]
            text = inner[0].content if inner else ""
            kept = first_sentence(text, lang, limit)
            shortened |= kept != text or len(inner) > 1
            blocks.append("> " + kept.replace("\n", "\n> "))
        else:  # headings, display math, tables, code, rules: as written
            blocks.append(verbatim)
        index = end + 1
    return {"blocks": [block for block in blocks if block.strip()], "shortened": shortened}


def _closing(tokens, index: int) -> int:
    """The index of the token closing the block that tokens[index] opens (itself if none)."""
    token = tokens[index]
    if token.nesting != 1:
        return index
    depth = 0
    for position in range(index, len(tokens)):
        depth += tokens[position].nesting
        if depth == 0:
            return position
    return len(tokens) - 1


def _nested_list(tokens, start: int, end: int) -> bool:
    """Whether the list tokens[start:end] holds another list (a slide shows it flattened)."""
    level = tokens[start].level
    return any(t.type in ("bullet_list_open", "ordered_list_open") and t.level > level for t in tokens[start + 1 : end])


def _list_items(tokens, start: int, end: int) -> list[tuple[str | None, bool]]:
    """(text of the item's first paragraph, whether that paragraph is all the item holds) per item."""
    items = []
    level = tokens[start].level + 1
    position = start + 1
    while position < end:
        token = tokens[position]
        if token.type == "list_item_open" and token.level == level:
            close = _closing(tokens, position)
            inside = tokens[position + 1 : close]
            paragraphs = [t for t in inside if t.type == "paragraph_open" and t.level == level + 1]
            first = next((i for i, t in enumerate(inside) if t.type == "inline"), None)
            text = inside[first].content if first is not None and paragraphs else None
            simple = (
                len(paragraphs) == 1
                and all(t.level > level for t in inside)
                and not any(t.type in ("bullet_list_open", "ordered_list_open", "fence", "math_block") for t in inside)
            )
            items.append((text, simple))
            position = close + 1
        else:
            position += 1
    return items


def visible_length(text: str) -> int:
    """Characters a reader sees, roughly: link targets and markup do not count."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return len(re.sub(r"[*_`\[\]]", "", text).strip())


def first_sentence(text: str, lang: str, limit: int | None = None) -> str:
    """`text` when it is short (or one sentence), else its first sentence."""
    limit = LIMIT.get(lang, LIMIT["en"]) if limit is None else limit
    if visible_length(text) <= limit:
        return text
    masked = text
    for pattern in _MASKS:
        masked = pattern.sub(lambda m: "\x00" * len(m.group(0)), masked)
    cut = None
    for match in (_END_ZH if lang == "zh" else _END_EN).finditer(masked):
        head = masked[: match.end()]
        if lang != "zh" and head.rstrip().endswith(_ABBREVIATIONS):
            continue
        cut = match.end()
        break
    if lang == "zh" and cut is None:
        english = _END_EN.search(masked)
        cut = english.end() if english else None
    if cut is None or cut >= KEEP_RATIO * len(text):
        return text
    # An emphasis opened in the first sentence and closed later would be left open.
    head = re.sub(r"(?<=\w)_(?=\w)", "", masked[:cut])  # snake_case is no emphasis
    for double, single in (("**", "*"), ("__", "_")):
        if head.count(double) % 2 or head.replace(double, "").count(single) % 2:
            return text
    return text[:cut].rstrip()


def _masked(text: str) -> str:
    for pattern in _MASKS:
        text = pattern.sub(lambda m: "\x00" * len(m.group(0)), text)
    return text


def sentences(text: str, lang: str) -> list[str]:
    """The sentences of a paragraph, in order, joined back they give the text (up to spaces).
    Never ends one inside math, code or a link target, or after an abbreviation ("et al.",
    "e.g.", "Fig."); a sentence ending in a colon keeps what it introduces."""
    masked = _masked(text)
    cuts = []
    for match in (_END_ZH if lang == "zh" else _END_EN).finditer(masked):
        head = masked[: match.end()]
        if head.rstrip().endswith(_ABBREVIATIONS):
            continue
        cuts.append(match.end())
    if lang == "zh":
        cuts += [m.end() for m in _END_EN.finditer(masked) if not masked[: m.end()].rstrip().endswith(_ABBREVIATIONS)]
    found, start = [], 0
    for cut in sorted(set(cuts)):
        piece = text[start:cut].strip()
        if piece:
            found.append(piece)
        start = cut
    rest = text[start:].strip()
    if rest:
        found.append(rest)
    return found
