"""Red team, round 4 (issue 35): fair and sealed. One file is one file's problem; student values
are the student's; children share no kernel object; containment the child cannot unpick; a
neighbour cannot take a timed child's CPU.

Run as root (as CI and Gradescope run it), against the real sandbox; the command-line cases go
through `coursegen grade` itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import round4_attacks as attacks

from grader.sandbox import Limits, Sandbox, SubmissionLoadError
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)

ROOT = Path(os.environ.get("COURSEGEN_REDTEAM_ROOT") or Path(__file__).resolve().parents[2])
LIMITS = Limits(call_seconds=3, import_seconds=5, cpu_seconds=8, memory_mb=512, processes=24, max_restarts=3)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="the attacks of this round need root on Linux"
)


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(course=FIRST_COURSE, limits=LIMITS) as box:
        yield box


# ---- item 4: one file is one file's problem -------------------------------------------------


@pytest.mark.parametrize("kind", sorted(attacks.GARBAGE))
def test_garbage_behind_ready_is_the_submissions_load_failure(sandbox, kind):
    """Loaded ahead and read late, the runtime's "ready" and the garbage the import wrote behind
    it arrive in one read: the "ready" is kept and the garbage is this submission's failure (a
    SubmissionLoadError with the student's sentence), never the sandbox's (a SandboxError, which
    ended the batch with exit 2)."""
    candidate = sandbox.load_ahead(attacks.garbler(kind), "positions.py")
    time.sleep(2.5)  # both frames are in the socket before the grader reads the first
    with candidate, pytest.raises(SubmissionLoadError) as raised:
        candidate.wait_loaded()
    assert "\n" not in raised.value.message and raised.value.message
    with sandbox.load("def f():\n    return 1\n") as honest:  # the sandbox goes on
        assert honest.f() == 1


@pytest.mark.slow
def test_a_garbling_submission_is_a_zero_and_the_batch_goes_on(tmp_path):
    """Through the real command: the garbler between two honest students scores 0 with a one-line
    reason naming it; the honest students score full marks, the report is written, exit 0."""
    honest = (ROOT / "solutions" / "positions.py").read_text(encoding="utf-8")
    batch = tmp_path / "batch"
    for name, source in (
        ("a_alice", honest),
        ("b_mallory", attacks.garbler("huge-header")),
        ("c_carol", honest),
    ):
        (batch / name).mkdir(parents=True)
        (batch / name / "positions.py").write_text(source, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "coursegen", "grade", str(batch), "--root", str(ROOT), "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = {entry["student"]: entry for entry in json.loads(run.stdout)}
    assert sorted(report) == ["a_alice", "b_mallory", "c_carol"]
    assert report["a_alice"]["score"] == report["c_carol"]["score"] == report["a_alice"]["max_score"] > 0
    mallory = report["b_mallory"]
    assert mallory["score"] == 0 and mallory["submission"] == "b_mallory/positions.py"
    reasons = {test["output"] for test in mallory["tests"] if not test["hidden"]}
    assert reasons and all(reason and "\n" not in reason for reason in reasons)


# ---- item 2: nothing shared, by allow-list --------------------------------------------------


@pytest.fixture(scope="module")
def objects(sandbox):
    with sandbox.load(attacks.KERNEL_OBJECTS, "objects.py") as loaded:
        assert "seccomp-object-allow-list" in loaded.isolation
        yield loaded


@pytest.mark.parametrize("family", attacks.REFUSED_FAMILIES)
def test_a_kernel_object_outside_the_allow_list_is_refused(objects, family):
    """A socket of any family but AF_UNIX (AF_VSOCK is not isolated by the network namespace),
    inotify/fanotify and dnotify (watching the read-only files every child shares), flock, POSIX
    and OFD locks on a shared file, POSIX message queues and System V IPC: each fails."""
    assert getattr(objects, family)() != "ok"


@pytest.mark.parametrize("family", attacks.ALLOWED_FAMILIES)
def test_what_the_allow_list_keeps_still_works(objects, family):
    assert getattr(objects, family)() == "ok"
