"""Count the values and the nesting of untrusted JSON text before it is decoded, in linear time.

`json.loads` of 20 MB of `[{},{},...]` builds millions of objects (gigabytes) before anything can
check their number; this scan refuses such text first, using only C-speed string operations
(no regular expression that could backtrack on `"\\"\\"\\"...`, no Python loop over the text):

    shape_of(text_or_bytes) -> (values, depth)

Escapes are removed first (`\\\\` pairs, then `\\"`), so every remaining quote delimits a string;
the parts outside strings are the even pieces between quotes. Malformed text gives a rough
count and json.loads reports the error itself.
"""

from __future__ import annotations

import re

_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def shape_of(text: str | bytes, max_values: int) -> tuple[int, int]:
    """(number of values, deepest nesting) of a JSON document; counting stops early (values
    above `max_values`, depth not computed) once the text has more values than allowed."""
    if isinstance(text, bytes):
        # Latin-1 maps each byte to one character, so every ASCII delimiter stays where it was
        # (UTF-8 never uses a byte below 0x80 inside a multi-byte character).
        text = text.decode("latin-1")
    bare = text.replace("\\\\", "").replace('\\"', "")
    strings = bare.count('"') // 2  # each string is a value: bounds the split below
    if strings > max_values:
        return strings, 0
    outside = "".join(bare.split('"')[0::2])
    del bare
    values = outside.count(",") + outside.count("[") + outside.count("{") + 1
    if values > max_values:
        return values, 0
    brackets = _NOT_BRACKET.sub("", outside)  # linear: one character class
    if len(brackets) > 2 * max_values + 2:
        return values, len(brackets)
    depth = deepest = 0
    for char in brackets:  # at most 2 * max_values + 2
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return values, deepest
