"""A recording on disk: the reference's answers to the calls the public checks made.

    index.json    {"format", "seed", "exercises", "blob_bytes",
                   "calls": {key: {"call", "args", "kwargs", and "result" | "raises" | "object"}}}
    tensors.bin   the raw bytes of every tensor (values are wire trees pointing into it)

Saving is deterministic: calls in key order, JSON with sorted keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.atomic import write_atomically

from .values import ReplayError, decode_value, encode_values

FORMAT = "coursegen-replay/2"
PUBLIC_SEED = 20240601  # the fixed seed of every recording; public by design
INDEX_FILE = "index.json"
TENSOR_FILE = "tensors.bin"
VALUE_FIELDS = ("args", "kwargs", "result")


@dataclass
class Recording:
    """Calls by key; each entry holds Python values (decoded) plus "call", "raises", "object"."""

    seed: int = PUBLIC_SEED
    exercises: list[str] = field(default_factory=list)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        places: list[tuple[str, str]] = []
        values: list[Any] = []
        for key in sorted(self.calls):
            for name in VALUE_FIELDS:
                if name in self.calls[key]:
                    places.append((key, name))
                    values.append(self.calls[key][name])
        trees, blob = encode_values(values, functions=True)  # results are plain values already (is_plain_value)
        calls = {key: {k: v for k, v in entry.items() if k not in VALUE_FIELDS} for key, entry in self.calls.items()}
        for (key, name), tree in zip(places, trees):
            calls[key][name] = tree
        index = {
            "format": FORMAT,
            "seed": self.seed,
            "exercises": sorted(set(self.exercises)),
            "blob_bytes": len(blob),
            "calls": calls,
        }
        write_atomically(directory / TENSOR_FILE, blob)
        write_atomically(directory / INDEX_FILE, json.dumps(index, sort_keys=True, indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, directory: Path) -> Recording:
        directory = Path(directory)
        try:
            index = json.loads((directory / INDEX_FILE).read_text(encoding="utf-8"))
            blob = (directory / TENSOR_FILE).read_bytes()
        except (OSError, ValueError) as exc:
            raise ReplayError(f"{directory}: not a readable recording ({exc})") from None
        if not isinstance(index, dict) or index.get("format") != FORMAT:
            found = index.get("format") if isinstance(index, dict) else None
            raise ReplayError(f"{directory / INDEX_FILE}: format {found!r}, expected {FORMAT!r}")
        if len(blob) != index.get("blob_bytes"):
            raise ReplayError(f"{directory / TENSOR_FILE}: truncated ({len(blob)} of {index.get('blob_bytes')} bytes)")
        calls = {
            key: {k: decode_value(v, blob) if k in VALUE_FIELDS else v for k, v in entry.items()}
            for key, entry in index["calls"].items()
        }
        return cls(seed=int(index["seed"]), exercises=list(index["exercises"]), calls=calls)

    def merge_from(self, directory: Path) -> None:
        """Add the calls of an existing recording (several grading sessions, one recording)."""
        other = Recording.load(directory)
        if other.seed != self.seed:
            raise ReplayError(f"{directory}: recorded with seed {other.seed}, not {self.seed}")
        self.exercises = sorted(set(self.exercises) | set(other.exercises))
        for key, entry in other.calls.items():
            self.calls.setdefault(key, entry)
