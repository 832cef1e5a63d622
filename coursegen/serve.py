"""`coursegen serve`: preview the site on localhost and rebuild when sources change.

A plain HTTP server serves `<root>/_site` from a background thread; the main thread
polls the modification times of content/ and templates/ and rebuilds when one
changes. The rebuild is the normal build: examples and figures whose inputs did not
change come from the cache, so only what changed is recomputed. A content mistake
is printed (file:line:column) and the previous site keeps being served.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path
from typing import Callable

WATCHED = ("content", "templates")


def snapshot(root: Path) -> dict[str, float]:
    """{path: mtime} of every file under the watched folders."""
    state: dict[str, float] = {}
    for folder in WATCHED:
        base = root / folder
        if base.is_dir():
            for path in base.rglob("*"):
                if path.is_file():
                    try:
                        state[str(path)] = path.stat().st_mtime_ns
                    except OSError:
                        pass
    return state


def rebuild(root: Path, out_dir: Path) -> bool:
    """Build once; print the summary or the content errors. True when it succeeded."""
    from .build import build_site
    from .errors import ContentError, ContentErrors

    try:
        report = build_site(root, out_dir, progress=False)
    except ContentErrors as exc:
        for error in exc.errors:
            print(error, flush=True)
        print(f"{len(exc.errors)} error(s); still serving the previous site.", flush=True)
        return False
    except ContentError as exc:
        print(exc, flush=True)
        return False
    print(report.summary(), flush=True)
    return True


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def serve(
    root: Path | str,
    *,
    port: int = 8000,
    interval: float = 1.0,
    out_dir: Path | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Build, serve on http://127.0.0.1:<port>/, rebuild on change until interrupted (or `stop` is set).

    `on_ready(url)` is called once the server listens (port 0 picks a free port)."""
    root = Path(root).resolve()
    out_dir = (out_dir or root / "_site").resolve()
    rebuild(root, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(_QuietHandler, directory=str(out_dir))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        print(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; try another --port", file=sys.stderr)
        raise SystemExit(2) from None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"Serving {out_dir} at {url} (Ctrl+C to stop)", flush=True)
    if on_ready is not None:
        on_ready(url)
    stop = stop or threading.Event()
    seen = snapshot(root)
    try:
        while not stop.wait(interval):
            current = snapshot(root)
            if current != seen:
                changed = sorted(set(current.items()) ^ set(seen.items()))
                print(f"Changed: {', '.join(sorted({Path(p).name for p, _ in changed}))}; rebuilding...", flush=True)
                seen = current
                rebuild(root, out_dir)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
