"""`coursegen serve`: preview the site on localhost, rebuild when a source changes, reload the page.

A plain HTTP server serves `<root>/_site` from a background thread; the main thread polls the
modification times of the course's sources (content/, templates/, exercises/, solutions/,
grader/checks/) every `interval` seconds and rebuilds when one changes. The rebuild is the
normal, incremental build (coursegen/outputs): only the output units whose inputs changed are
written again, so a prose edit is on disk well within a second.

Live reload exists only here, never in the built site: every HTML page the server sends gets
one classic script (`/__coursegen__/reload.js`) that polls `/__coursegen__/version` and reloads
the page when a build finished since the page was loaded. When a build fails, every page
request gets an error page naming each mistake (file:line:column: what was expected) instead
of the stale page, and it reloads to the fixed page as soon as a build succeeds.
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import sys
import threading
from pathlib import Path
from typing import Callable

WATCHED = ("content", "templates", "exercises", "solutions", "grader/checks")
ENDPOINT = "/__coursegen__/"
POLL_MS = 250  # how often a page asks whether a build finished
RELOAD_SCRIPT = f"""// coursegen serve: reload this page when the site was rebuilt (not part of the built site)
(function () {{
  var seen = null;
  function poll() {{
    var request = new XMLHttpRequest();
    request.open("GET", "{ENDPOINT}version?" + Date.now(), true);
    request.onload = function () {{
      if (request.status === 200) {{
        var version = JSON.parse(request.responseText).version;
        if (seen === null) {{ seen = version; }} else if (version !== seen) {{ window.location.reload(); return; }}
      }}
      setTimeout(poll, {POLL_MS});
    }};
    request.onerror = function () {{ setTimeout(poll, 4 * {POLL_MS}); }};
    request.send();
  }}
  poll();
}})();
"""
SCRIPT_TAG = f'<script src="{ENDPOINT}reload.js"></script>'


class BuildState:
    """What the server shows: the number of the last finished build and its error (None: it succeeded)."""

    def __init__(self) -> None:
        self.version = 0
        self.errors: list[str] | None = None
        self.lock = threading.Lock()

    def finished(self, errors: list[str] | None) -> None:
        with self.lock:
            self.version += 1
            self.errors = errors


def snapshot(root: Path) -> dict[str, float]:
    """{path: mtime} of every file under the watched folders."""
    state: dict[str, float] = {}
    for folder in WATCHED:
        base = root / folder
        if base.is_dir():
            for path in base.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    try:
                        state[str(path)] = path.stat().st_mtime_ns
                    except OSError:
                        pass
    return state


def forget_changed_code(root: Path, changed: list[Path]) -> None:
    """A course's plugin modules and its code (exercises/, solutions/) are imported once per
    process; where one of their files changed (edited, added or removed), they are dropped so that
    the next build imports them afresh. Plugins go with the code, since they call the references."""
    from grader.course import Course

    from .plugin_loading import forget_plugins

    folders = {path.relative_to(root).parts[:2] for path in changed if path.is_relative_to(root)}  # as snapshot() lists
    code = any(parts[:1] in (("exercises",), ("solutions",)) for parts in folders)
    if code:
        Course.forget(root)
    if code or ("content", "plugins") in folders:
        forget_plugins(root)


def rebuild(root: Path, out_dir: Path, state: BuildState | None = None) -> bool:
    """Build once; print the summary or the content errors. True when it succeeded."""
    from .build import build_site
    from .errors import ContentError, ContentErrors

    errors: list[str] | None = None
    try:
        report = build_site(root, out_dir, progress=False)
    except ContentErrors as exc:
        errors = [str(error) for error in exc.errors]
    except ContentError as exc:
        errors = [str(exc)]
    except Exception as exc:  # noqa: BLE001 - a failing build is shown, the server keeps running
        errors = [f"the build failed: {type(exc).__name__}: {exc}"]
    if errors is not None:
        for line in errors:
            print(line, flush=True)
        print(f"{len(errors)} error(s); the browser shows them until a build succeeds.", flush=True)
    else:
        print(report.summary(), flush=True)
    if state is not None:
        state.finished(errors)
    return errors is None


def error_page(errors: list[str]) -> str:
    items = "\n".join(f"<li><pre>{html.escape(line)}</pre></li>" for line in errors)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Build failed</title>'
        "<style>body{font-family:sans-serif;margin:2rem;max-width:60rem}pre{white-space:pre-wrap;"
        "background:#fff0f0;border-left:4px solid #c00;padding:.5rem 1rem}</style></head><body>"
        f"<h1>The build failed</h1><p>{len(errors)} error(s). Fix them and save: this page reloads "
        f"when a build succeeds.</p><ol>{items}</ol>{SCRIPT_TAG}</body></html>\n"
    )


def inject(page: bytes) -> bytes:
    """The page with the reload script before `</body>` (or at its end)."""
    tag = SCRIPT_TAG.encode()
    index = page.rfind(b"</body>")
    return page[:index] + tag + page[index:] if index >= 0 else page + tag


class PreviewHandler(http.server.SimpleHTTPRequestHandler):
    """The preview's requests. It answers only its own host: a request whose `Host` is not the
    address the server is bound to (127.0.0.1:<port>, or localhost:<port>), or whose `Origin`,
    when sent, is not that address's, gets 403. A page of another site that rebinds its name to
    127.0.0.1 (DNS rebinding) sends its own name as Host, so it can read nothing."""

    state: BuildState  # set by serve() on a subclass
    hosts: frozenset[str] = frozenset()  # the Host values this server answers (preview_server)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    def _foreign(self) -> bool:
        """Whether the request names another host (then 403 was sent)."""
        host = self.headers.get("Host", "")
        origin = self.headers.get("Origin")
        origins = {f"http://{h}" for h in self.hosts}
        if host.lower() in self.hosts and (origin is None or origin.lower() in origins):
            return False
        self._send(403, "text/plain; charset=utf-8", b"coursegen serve answers only its own address\n")
        return True

    def do_HEAD(self) -> None:  # noqa: N802 - the base class's name
        if not self._foreign():
            super().do_HEAD()

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self._foreign():
            return
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == ENDPOINT + "version":
            with self.state.lock:
                body = json.dumps({"version": self.state.version, "ok": self.state.errors is None})
            return self._send(200, "application/json", body.encode())
        if path == ENDPOINT + "reload.js":
            return self._send(200, "text/javascript; charset=utf-8", RELOAD_SCRIPT.encode())
        with self.state.lock:
            errors = self.state.errors
        wants_page = path.endswith("/") or path.endswith(".html")
        if errors is not None and wants_page:
            return self._send(500, "text/html; charset=utf-8", error_page(errors).encode())
        if wants_page:
            file = Path(self.translate_path(path))
            if file.is_dir():
                file = file / "index.html"
            try:
                page = file.read_bytes()
            except OSError:
                return super().do_GET()
            return self._send(200, "text/html; charset=utf-8", inject(page))
        return super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a preview is never served stale from the browser cache
        super().end_headers()

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def preview_server(out_dir: Path, state: BuildState, port: int) -> http.server.ThreadingHTTPServer:
    """The preview's server, bound to 127.0.0.1:`port` (0: a free port), answering only requests
    that name that address (PreviewHandler); not started."""
    handler_class: type[PreviewHandler] = type("Handler", (PreviewHandler,), {"state": state})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler_class, directory=str(out_dir))
    )
    bound = server.server_address[1]
    handler_class.hosts = frozenset({f"127.0.0.1:{bound}", f"localhost:{bound}"})
    return server


def serve(
    root: Path | str,
    *,
    port: int = 8000,
    interval: float = 0.2,
    out_dir: Path | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Build, serve on http://127.0.0.1:<port>/, rebuild on change until interrupted (or `stop` is set).

    `on_ready(url)` is called once the server listens (port 0 picks a free port)."""
    root = Path(root).resolve()
    out_dir = (out_dir or root / "_site").resolve()
    state = BuildState()
    seen = snapshot(root)
    rebuild(root, out_dir, state)
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        server = preview_server(out_dir, state, port)
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
    try:
        while not stop.wait(interval):
            current = snapshot(root)
            if current != seen:
                changed = sorted(set(current.items()) ^ set(seen.items()))
                print(f"Changed: {', '.join(sorted({Path(p).name for p, _ in changed}))}; rebuilding...", flush=True)
                seen = current
                forget_changed_code(root, [Path(p) for p, _ in changed])
                rebuild(root, out_dir, state)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
