"""`coursegen serve`: preview the site, rebuilt when a source changes."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import root_option


@click.command()
@root_option
@click.option("--port", type=int, default=8000, show_default=True, help="Port on localhost.")
@click.option("--interval", type=float, default=0.2, show_default=True, help="Seconds between checks for changes.")
def serve(root: Path, port: int, interval: float) -> None:
    """Preview the site on http://localhost:PORT; rebuild (incrementally) when a source changes
    (content/, templates/, exercises/, solutions/, grader/checks/) and reload the open page.
    A failing build shows its errors in the browser until it is fixed. The reload script is
    added by the server only: the built site holds no trace of it."""
    from coursegen.serve import serve as run_server

    run_server(root, port=port, interval=interval)
