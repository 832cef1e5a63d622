"""A check over no items proves nothing: `nonempty` makes a loop over an empty collection fail.

    for page in nonempty(all_pages(site), "pages of the built site"):
        assert ...
    assert all(row.ok for row in nonempty(rows, "rows"))

It yields the items as they come (a generator that opens a browser page per item stays lazy)
and, when the collection ends having yielded none, fails the test naming what was missing,
where a bare `for` or `all(...)` would pass having checked nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def nonempty(items: Iterable[T], what: str = "items") -> Iterator[T]:
    """The items of `items`, one by one; an AssertionError at the end if there were none."""
    count = 0
    for item in items:
        count += 1
        yield item
    assert count, f"no {what}: a check over an empty collection would pass having checked nothing"
