"""grader.jsonshape counts a JSON document's values and nesting without decoding it; checked here
against a walk of the decoded document (an independent count), for text and bytes alike."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.jsonshape import shape_of

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


def _walk(value: object, level: int = 0) -> tuple[int, int, int]:
    """(values, empty containers, deepest container nesting) of a decoded document."""
    children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
    if children is None:
        return 1, 0, level
    values, empty, deepest = 1, int(not children), level + 1
    for child in children:
        v, e, d = _walk(child, level + 1)
        values, empty, deepest = values + v, empty + e, max(deepest, d)
    return values, empty, deepest


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS, st.booleans(), st.booleans())
def test_counts_agree_with_the_decoded_document(document, as_bytes, ascii_only):
    text = json.dumps(document, ensure_ascii=ascii_only)
    values, empty, deepest = _walk(document)
    counted, depth = shape_of(text.encode() if as_bytes else text, max_values=10_000)
    # An empty container is counted as holding one value (no comma tells it apart): an upper bound.
    assert values <= counted <= values + empty
    assert depth == deepest


def test_counting_stops_early_above_the_limit():
    text = "[" + ",".join(["{}"] * 1000) + "]"
    counted, depth = shape_of(text, max_values=100)
    assert counted > 100 and depth == 0
    assert shape_of(b'["' + b'\\"' * 50 + b'"]', max_values=10) == (2, 1)  # the list and its one string
