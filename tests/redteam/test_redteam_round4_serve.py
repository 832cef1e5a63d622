"""Red team, round 4 (issue 35), item 7: the preview answers only its own host. A real
`coursegen serve` server (coursegen.serve.preview_server) on loopback: a request naming its
address is served; a foreign Host (a DNS-rebinding page) or a foreign Origin gets 403."""

from __future__ import annotations

import http.client
import threading

import pytest

from coursegen.serve import BuildState, preview_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("site")
    (tmp_path / "index.html").write_text("<html><body>secret preview</body></html>", encoding="utf-8")
    (tmp_path / "data.json").write_text('{"answer": 42}', encoding="utf-8")
    state = BuildState()
    state.finished(None)
    server = preview_server(tmp_path, state, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def request(port: int, path: str, headers: dict, method: str = "GET") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest(method, path, skip_host=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


@pytest.mark.parametrize("path", ["/", "/data.json", "/__coursegen__/version", "/__coursegen__/reload.js"])
def test_its_own_host_is_served(server, path):
    for host in (f"127.0.0.1:{server}", f"localhost:{server}"):
        status, _ = request(server, path, {"Host": host})
        assert status == 200
    status, _ = request(server, path, {"Host": f"127.0.0.1:{server}", "Origin": f"http://127.0.0.1:{server}"})
    assert status == 200


@pytest.mark.parametrize("path", ["/", "/data.json", "/__coursegen__/version"])
@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "attacker.example"},
        {"Host": "attacker.example:{port}"},
        {"Host": "127.0.0.1:1"},
        {},
        {"Host": "127.0.0.1:{port}", "Origin": "http://attacker.example:{port}"},
        {"Host": "127.0.0.1:{port}", "Origin": "null"},
    ],
    ids=["foreign-host", "foreign-host-same-port", "other-port", "no-host", "foreign-origin", "null-origin"],
)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_foreign_host_or_origin_is_refused(server, path, headers, method):
    status, body = request(server, path, {k: v.format(port=server) for k, v in headers.items()}, method)
    assert status == 403
    assert b"secret" not in body and b"42" not in body
