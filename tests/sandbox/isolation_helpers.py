"""Helpers shared by the sandbox tests."""
from __future__ import annotations

from pathlib import Path


def covering_mounts(isolation: list[str], path: Path) -> list[Path]:
    """The folders whose fresh tmpfs in the child covers `path`: `hidden:<folder>` mounts, and
    the private /tmp and /var/tmp where a checkout lies under them."""
    covers = [Path(t.split(":", 1)[1]) for t in isolation if t.startswith("hidden:")]
    if "private-tmp" in isolation:
        covers += [Path("/tmp"), Path("/var/tmp")]
    return [c for c in covers if path == c or c in path.parents]
