"""A real `coursegen service start` process on a free loopback port, for the service's tests,
the browser test of its page and bench/service.py."""

from __future__ import annotations

import csv
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def issue_tokens(gradebook: Path, students: list[str], folder: Path) -> dict[str, str]:
    """`coursegen service tokens` for `students` (and the instructor): {student: token}."""
    roster, out = folder / "roster.csv", folder / "tokens.csv"
    roster.write_text("student\n" + "".join(f"{s}\n" for s in students), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "coursegen", "service", "tokens", "--roster", str(roster), "--gradebook", str(gradebook),
         "-o", str(out)],
        cwd=REPO, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return {row["student"]: row["token"] for row in csv.DictReader(out.open(encoding="utf-8"))}


@dataclass
class Service:
    process: subprocess.Popen
    url: str
    gradebook: Path
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_service(
    gradebook: Path,
    *args: str,
    env: dict[str, str] | None = None,
    ready_seconds: float = 240.0,
    port: int | None = None,
) -> Service:
    """Start the service on the repository's course (or the one `--root` names in `args`), on `port`
    (default a free one); return once /healthz says it is ready. A free port can be taken by another
    process (a Dask scheduler or worker of a test running beside this one) between the moment it is
    picked and the service's bind: when it is, and no port was asked for, the service starts again on
    another one."""
    for attempt in range(3):
        service = _start_service(gradebook, args, env, ready_seconds, port or free_port())
        if service is not None or port is not None:
            break
    if service is None:
        raise RuntimeError("the service found its port taken three times")
    return service


def _start_service(
    gradebook: Path, args: tuple[str, ...], env: dict[str, str] | None, ready_seconds: float, port: int
) -> Service | None:
    """The ready service on `port`, or None when that port turned out to be taken."""
    import httpx

    log = gradebook.parent / f"service-{port}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "coursegen", "service", "start", "--gradebook", str(gradebook), "--port", str(port),
         *args],
        cwd=REPO, stdout=log.open("wb"), stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
    )  # fmt: skip
    service = Service(process, f"http://127.0.0.1:{port}", gradebook, log)
    deadline = time.monotonic() + ready_seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = log.read_text(errors="replace")
            if "address already in use" in text.lower():
                return None
            raise RuntimeError(f"the service stopped ({process.returncode}):\n{text}")
        try:
            answer = httpx.get(f"{service.url}/healthz", timeout=2)
            # another process's server on this port answers something else: wait for ours to fail
            if answer.headers.get("content-type", "").startswith("application/json") and answer.json().get("ready"):
                return service
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    service.stop()
    raise RuntimeError(f"the service was not ready in {ready_seconds} s:\n{log.read_text(errors='replace')}")


def wait_graded(client, url: str, token: str, submission_id: str, seconds: float = 180.0) -> dict:
    """Ask for a submission (waiting up to 10 s on the server each time) until it is done or failed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = client.get(
            f"{url}/api/v1/submissions/{submission_id}",
            params={"wait": 10},
            headers={"Authorization": f"Bearer {token}"},
        )
        body = answer.json()
        if body.get("status") in ("done", "failed"):
            return body
        time.sleep(0.1)
    raise AssertionError(f"submission {submission_id} not graded in {seconds} s")


def assert_graded_as_the_command(graded: dict, batch: Path, *, assignment: str, gradebook: Path, env: dict,
                                 timeout: float) -> None:  # fmt: skip
    """Each service result in `graded` (student -> result) equals `coursegen grade BATCH --assignment`
    run as a user types it, with the service gradebook's seed, on the same files (one folder per student)."""
    import json
    import sqlite3

    seed = sqlite3.connect(gradebook).execute("SELECT value FROM meta WHERE key = 'batch_seed'").fetchone()[0]
    done = subprocess.run(
        [sys.executable, "-m", "coursegen", "grade", str(batch), "--assignment", assignment, "--seed", seed,
         "--format", "json", "--gradebook", str(batch.parent / "cli.sqlite"), "--workers", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = {r["student"]: r for r in json.loads(done.stdout)}
    assert sorted(expected) == sorted(graded)
    for student, result in graded.items():
        assert result["status"] == "done", (student, result)
        want = expected[student]
        assert (result["score"], result["max_score"]) == (want["score"], want["max_score"]), student
        cli_tests = [{**t, "name": f"{t['exercise']}: {t['name']}"} for t in want["tests"]]
        assert comparable(result["tests"]) == comparable(cli_tests), student


def comparable(tests: list[dict]) -> list[tuple]:
    """What of a per-check result must agree between the service and the command."""
    return [(t["name"], t["status"], round(t["score"], 6), round(t["max_score"], 6)) for t in tests]
