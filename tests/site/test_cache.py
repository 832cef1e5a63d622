"""coursegen/cache.py, the build's one cache: values come back as stored (order kept), a damaged
or foreign entry is a miss, `value` computes once, a unit's files are reused only under its key."""

from __future__ import annotations

import json
from pathlib import Path

from coursegen.cache import Cache


def test_a_value_comes_back_with_its_keys_in_their_order(tmp_path):
    cache = Cache(tmp_path)
    cache.put("yaml", "k", {"zeta": 1, "alpha": [2, {"b": 1, "a": 2}]})
    assert json.dumps(cache.get("yaml", "k")) == json.dumps({"zeta": 1, "alpha": [2, {"b": 1, "a": 2}]})


def test_a_damaged_or_foreign_entry_is_a_miss(tmp_path):
    cache = Cache(tmp_path)
    cache.put("examples", "k", "out")
    path = cache.path("examples", "k")
    entry = json.loads(path.read_text(encoding="utf-8"))
    for damaged in ("{broken", json.dumps({**entry, "key": "other"}), json.dumps({**entry, "format": "0"}), "[]"):
        path.write_text(damaged, encoding="utf-8")
        assert cache.get("examples", "k") is None
    assert cache.get("examples", "absent") is None


def test_value_computes_once_and_returns_what_a_cached_read_returns(tmp_path):
    cache = Cache(tmp_path)
    calls: list[int] = []

    def compute():
        calls.append(1)
        return {"t": (1, 2)}

    first = cache.value("quiz", "k", compute)
    again = Cache(tmp_path).value("quiz", "k", compute)
    assert first == again == {"t": [1, 2]}  # as JSON gives it back, cold or cached
    assert calls == [1]
    assert Cache(tmp_path).value("quiz", "k", compute, reuse=False) == first and calls == [1, 1]


def test_a_unit_is_copied_from_the_cache_only_under_its_key(tmp_path):
    cache = Cache(tmp_path / "cache")
    writes: list[str] = []

    def write(out: Path) -> None:
        writes.append("w")
        (out / "a").mkdir()
        (out / "a" / "page.html").write_bytes(b"<p>x</p>")

    site = tmp_path / "site"
    site.mkdir()
    assert cache.place_unit(site, "lesson-pages:a", "k1", write) is False
    again = tmp_path / "again"
    again.mkdir()
    assert cache.place_unit(again, "lesson-pages:a", "k1", write) is True
    assert (again / "a" / "page.html").read_bytes() == b"<p>x</p>" and writes == ["w"]
    assert cache.place_unit(again, "lesson-pages:a", "k2", write) is False and writes == ["w", "w"]
    assert cache.place_unit(again, "lesson-pages:a", "k2", write, reuse=False) is False and len(writes) == 3
