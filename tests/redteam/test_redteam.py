"""Red team: every attack of issue 6 is graded through the real `coursegen grade` command, in one
batch, and must earn nothing beyond the honest baseline, leave the grader alive with a valid
report, leak nothing into the report, and change nothing outside its own temp folder."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import string
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from attacks import ATTACKS, LEAK_MARKERS

ROOT = Path(__file__).resolve().parents[2]
SECRET = f"grader-secret-{uuid.uuid4().hex}"
LIMITS = "call_seconds=1,import_seconds=3,cpu_seconds=8,memory_mb=512,output_kb=32,max_restarts=8"


def tree_digest(*folders: Path) -> dict[str, str]:
    """sha256 of every file under the folders (bytecode caches aside)."""
    digest = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.exists() else []:
            if path.is_file() and "__pycache__" not in path.parts:
                digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


class Listener:
    """A TCP server on the host's loopback that records every connection (there must be none)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
                self.connections += 1
                connection.close()
            except OSError:
                pass

    def close(self):
        self.running = False
        self.thread.join()
        self.server.close()


def canary_folder(tmp_root: Path) -> Path:
    """A world-writable folder outside /tmp (which the child sees as its own private tmpfs)."""
    for base in (Path("/opt"), Path("/var/lib"), Path.home()):
        try:
            folder = base / f"coursegen-canary-{uuid.uuid4().hex[:8]}"
            folder.mkdir()
            break
        except OSError:
            continue
    else:
        folder = tmp_root / "canary"
        folder.mkdir()
    (folder / "keep.txt").write_text("canary\n")
    folder.chmod(0o777)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade every attack in one batch; returns (per-student results, run facts)."""
    work = tmp_path_factory.mktemp("redteam")
    batch, out = work / "batch", work / "out"
    out.mkdir()
    canary = canary_folder(work)
    listener = Listener()
    output = out / "results.json"
    gradebook = out / "gradebook.sqlite"
    fill = {
        "root": str(ROOT),
        "canary": str(canary),
        "output": str(output),
        "output_dir": str(out),
        "gradebook": str(gradebook),
        "port": str(listener.port),
    }
    for name, source in ATTACKS.items():
        (batch / name).mkdir(parents=True)
        (batch / name / "rope.py").write_text(string.Template(source).safe_substitute(fill))
    protected = [ROOT / "solutions", ROOT / "grader", ROOT / "exercises", canary, batch]
    before = tree_digest(*protected)
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS=LIMITS, COURSEGEN_REDTEAM_SECRET=SECRET)
    started = time.monotonic()
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "coursegen",
            "grade",
            str(batch),
            "--format",
            "json",
            "--output",
            str(output),
            "--gradebook",
            str(gradebook),
            "--seed",
            "20240601",
            "--workers",
            "2",
            "--root",
            str(ROOT),
        ],
        cwd=out,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    time.sleep(4)  # the lingering background process would write by now
    listener.close()
    after = tree_digest(*protected)
    report = output.read_text() if output.exists() else ""
    facts = {
        "returncode": process.returncode,
        "stderr": process.stderr,
        "stdout": process.stdout,
        "report": report,
        "before": before,
        "after": after,
        "canary": canary,
        "out": out,
        "connections": listener.connections,
        "elapsed": elapsed,
    }
    results = {}
    try:
        for entry in json.loads(report):
            results[Path(entry["submission"]).parent.name or entry["student"]] = entry
            results[entry["student"]] = entry
    except (ValueError, KeyError, TypeError):
        pass
    yield results, facts
    shutil.rmtree(canary, ignore_errors=True)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_grader_survives_every_attack_and_exits_zero(graded):
    _, facts = graded
    assert facts["returncode"] == 0, facts["stderr"][-2000:]


def test_report_is_valid_json_with_every_submission(graded):
    results, facts = graded
    data = json.loads(facts["report"])
    assert isinstance(data, list) and {e["student"] for e in data} == set(ATTACKS)
    for entry in data:
        assert 0 <= entry["score"] <= entry["max_score"]
        assert all(t["status"] in ("passed", "failed") for t in entry["tests"])


@pytest.mark.parametrize("attack", sorted(set(ATTACKS) - {"baseline"}))
def test_attack_earns_no_more_than_the_honest_baseline(graded, attack):
    results, _ = graded
    assert attack in results, "no result for this attack"
    assert results[attack]["score"] <= results["baseline"]["score"], results[attack]


def test_baseline_is_graded_normally(graded):
    results, _ = graded
    baseline = results["baseline"]
    assert (
        0 < baseline["score"] < baseline["max_score"]
    )  # a rotation that ignores positions passes some checks, not all


def test_nothing_outside_the_child_temp_folder_changed(graded):
    _, facts = graded
    before, after = facts["before"], facts["after"]
    ours = lambda digest: {p: h for p, h in digest.items() if not p.startswith(str(ROOT))}  # noqa: E731
    assert ours(after) == ours(before)  # the canary and the batch: exactly as they were
    assert sorted(set(before) - set(after)) == [], "files deleted"
    # The repository may be edited by other people while this runs (not in CI): new or changed
    # files there must at least not be anything an attack writes.
    for path in (p for p in after if p.startswith(str(ROOT)) and after[p] != before.get(p)):
        content = Path(path).read_bytes()
        assert Path(path).name not in ("late.txt", "results.json", "reduced"), path
        assert content != b"late" and not content.startswith(b'{"score": 10'), path
    assert sorted(p.name for p in facts["canary"].iterdir()) == ["keep.txt"]
    for path in ("/tmp/results.json", "/tmp/late.txt", "/autograder/results/results.json"):
        assert not Path(path).exists() or Path(path).stat().st_mtime < time.time() - 3600


def test_report_is_written_by_the_grader_not_the_child(graded):
    _, facts = graded
    written = sorted(p.name for p in facts["out"].iterdir() if not p.name.startswith((".", "gradebook")))
    assert written == ["results.json"]
    assert '"tests": []' not in facts["report"]


def test_no_secret_leaks_into_the_report(graded):
    _, facts = graded
    for marker in (SECRET, *LEAK_MARKERS):
        assert marker not in facts["report"], marker


def test_no_network_connection_left_the_child(graded):
    _, facts = graded
    assert facts["connections"] == 0


def test_limit_hits_are_reported_in_plain_sentences(graded):
    results, _ = graded
    outputs = {
        name: " ".join(t["output"] for t in results[name]["tests"] if not t["hidden"])
        + " ".join(results[name].get("problems", []))
        for name in results
    }
    assert "ran longer than 1 s" in outputs["infinite_loop"]
    assert "ran longer than 1 s" in outputs["sleep"]
    assert "crashed (signal 11)" in outputs["segfault"]
    assert "memory" in outputs["allocate_20_gb"]
    assert "output limit exceeded" in outputs["output_100_mb"]
    assert "ended the process (exit code 0)" in outputs["os_exit_in_call"]
