"""Output: the site's assets (stylesheets, classic scripts, the Pygments stylesheet), one unit."""

from __future__ import annotations

from typing import Iterator

from . import BuildInputs, Unit, keys


def units(build: BuildInputs) -> Iterator[Unit]:
    from ..site import write_assets

    yield Unit("assets", keys.assets_digest(build.loaded), lambda out: write_assets(build.loaded, out, build.env))
