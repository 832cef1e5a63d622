"""Red team, round 4 (issue 35): fair and sealed. One file is one file's problem; student values
are the student's; children share no kernel object; containment the child cannot unpick; a
neighbour cannot take a timed child's CPU.

Run as root (as CI and Gradescope run it), against the real sandbox; the command-line cases go
through `coursegen grade` itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import round4_attacks as attacks

from grader.sandbox import CandidateError, Limits, Sandbox, SandboxError, SubmissionLoadError
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


@pytest.mark.slow
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


# ---- item 3: containment the child cannot unpick --------------------------------------------


def _cgroup_of(pid: int | str, hierarchy: str) -> str:
    with open(f"/proc/{pid}/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if hierarchy in controllers.split(","):
                return path
    return ""


def test_the_keeper_lives_outside_the_childs_memory_and_pid_limits(sandbox):
    """The keeper's cgroup is not the runner's: the limits the student's processes live under
    (pids.max, the memory limit) never count or choose the keeper."""
    with sandbox.load("import os\ndef mine():\n    return open('/proc/self/cgroup').read()\n") as child:
        runner = {
            controllers: path for _, controllers, path in (line.split(":", 2) for line in child.mine().splitlines())
        }
        keeper = child._child.containment.keeper
        for hierarchy in ("memory", "pids"):
            if hierarchy not in runner:
                continue
            keeper_path, runner_path = _cgroup_of(keeper, hierarchy), runner[hierarchy]
            assert "coursegen-" in runner_path and keeper_path != runner_path
            assert not runner_path.startswith(keeper_path + "/")  # the limits are not above the keeper


def test_a_child_filling_its_memory_with_unmapped_pages_is_its_own_memory_error():
    name = marker_name()
    limits = Limits(call_seconds=20, import_seconds=10, memory_mb=64, processes=8, max_restarts=0)
    with Sandbox(course=FIRST_COURSE, limits=limits) as box:
        with box.load(attacks.memory_filler(name)) as child:
            keeper = child._child.containment.keeper
            with pytest.raises(CandidateError) as raised:
                child.fill()
            assert raised.value.kind == "memory", raised.value
            assert keeper not in attacks_processes(name)
        assert box.take_leftovers(wait=True) == []
    assert left_after(name) == []


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_keeper_killed_before_ready_is_read_is_reported_and_its_child_ends():
    """The keeper dies (here: killed by root, as the OOM killer did when it shared the child's
    memory cgroup) while a look-ahead child waits to be read: the grader keeps every cgroup of
    the child, kills it whole at its end and reports the failure; nothing of it lives on."""
    name = marker_name()
    with Sandbox(course=FIRST_COURSE, limits=LIMITS) as box:
        child = box.load_ahead(attacks.memory_filler(name), "positions.py")
        keeper = child._child.containment.keeper
        assert started_named(name)
        os.kill(keeper, signal.SIGKILL)
        time.sleep(0.5)
        with child:
            try:
                child.wait_loaded()
            except (SubmissionLoadError, SandboxError):
                pass
        reported = box.take_leftovers(wait=True)
    assert reported and "keeper" in reported[0]
    assert left_after(name) == []


def test_a_keeper_killed_while_its_child_runs_is_reported_and_its_child_ends():
    name = marker_name()
    with Sandbox(course=FIRST_COURSE, limits=LIMITS) as box:
        with box.load(attacks.memory_filler(name)) as child:
            assert child.alive() is True
            os.kill(child._child.containment.keeper, signal.SIGKILL)
            time.sleep(0.5)
        reported = box.take_leftovers(wait=True)
    assert reported and "keeper" in reported[0]
    assert left_after(name) == []


def marker_name() -> str:
    return f"cg{uuid.uuid4().hex[:12]}"


def attacks_processes(name: str) -> list[int]:
    import round3_attacks

    return round3_attacks.processes_named(name)


def started_named(name: str, within: float = 10.0) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = attacks_processes(name)
        if found:
            return found
        time.sleep(0.05)
    return []


def left_after(name: str, settle: float = 2.0) -> list[int]:
    import round3_attacks

    deadline = time.monotonic() + settle
    found = attacks_processes(name)
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = attacks_processes(name)
    round3_attacks.kill_all(found)
    return found


# ---- item 1: fair time ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ahead", [True, False], ids=["loaded-ahead", "loaded-beside"])
def test_a_busy_neighbour_does_not_make_a_correct_call_time_out(ahead):
    """A neighbour whose import starts 20 processes spinning in sessions of their own (the next
    submission loaded ahead, or a classmate loaded beside) while a correct call needing 1 s of
    CPU time runs with a 2 s limit: the call is charged on its own CPU time, the neighbour has
    the same weight as any child (or, loaded ahead, the idle weight), and the call passes."""
    limits = Limits(call_seconds=2, import_seconds=10, cpu_seconds=60, processes=24, max_restarts=0)
    with Sandbox(course=FIRST_COURSE, limits=limits) as box:
        with box.load(attacks.NEEDS_CPU) as timed:
            neighbour = (box.load_ahead if ahead else box.load)(attacks.busy_neighbour(20), "positions.py")
            with neighbour:
                time.sleep(1.0)  # the spinners are up
                for _ in range(3):
                    assert timed.work(1.0) is True
        assert box.take_leftovers(wait=True) == []
