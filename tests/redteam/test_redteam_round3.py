"""Red team, round 3 (issue 23): nothing of a submission outlives its grading, and no two children
share anything.

Run as root (as CI and Gradescope run it). Each attack is loaded into the real sandbox; what is
left is looked for from the host (a process name only the attack's processes carry), apart from
the sandbox's own accounting; the command-line cases go through `coursegen grade` itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import round3_attacks as attacks

from grader.sandbox import CandidateError, Limits, Sandbox
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)

# the course graded by the command-line cases (this checkout; another to run these tests against it)
ROOT = Path(os.environ.get("COURSEGEN_REDTEAM_ROOT") or Path(__file__).resolve().parents[2])
LIMITS = Limits(call_seconds=3, import_seconds=5, cpu_seconds=8, memory_mb=512, processes=24, max_restarts=3)

linux_root = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="the attacks of this round need root on Linux"
)
pytestmark = linux_root


def marker() -> str:
    return f"cg{uuid.uuid4().hex[:12]}"


def checked(box) -> list[str]:
    """Wait until the sandbox has checked the end of every child ended so far; what it found left.
    (The code before issue 23 had no such check: nothing to wait for.)"""
    take = getattr(box, "take_leftovers", None)
    return take(wait=True) if take is not None else []


def started(marker_name: str, within: float = 10.0) -> list[int]:
    """The attack's processes, waited for up to `within` s: a daemon forked twice may not exist
    yet when the call that started it returns, on a loaded machine."""
    deadline = time.monotonic() + within
    found = attacks.processes_named(marker_name)
    while not found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = attacks.processes_named(marker_name)
    return found


def left_after(marker_name: str, settle: float = 1.0) -> list[int]:
    """Processes of the attack still alive `settle` s after its grading ended (killed after)."""
    deadline = time.monotonic() + settle
    found = attacks.processes_named(marker_name)
    while found and time.monotonic() < deadline:
        time.sleep(0.05)
        found = attacks.processes_named(marker_name)
    attacks.kill_all(found)  # never leave them on the machine, whatever the outcome
    return found


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(course=FIRST_COURSE, limits=LIMITS) as box:
        yield box


@pytest.mark.parametrize(
    "build",
    [attacks.linger, attacks.double_fork, lambda m: attacks.double_fork(m, count=5)],
    ids=["setsid-pdeathsig-exit", "double-fork", "five-daemons"],
)
@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "fallback"])
def test_nothing_of_a_child_outlives_its_grading(build, namespaces):
    name = marker()
    with Sandbox(course=FIRST_COURSE, limits=LIMITS, namespaces=namespaces, refuse_readable=False) as box:
        with box.load(build(name)) as candidate:
            assert candidate.dot([1, 2], [3, 4]) == 11
            assert started(name), "the attack did not start (the test would prove nothing)"
        leftovers = checked(box)
        assert left_after(name, settle=0.0) == [], "a process of the child outlived its grading"
        assert leftovers == []  # and the sandbox's own check saw nothing left


def test_a_lingering_child_is_gone_once_its_end_is_checked(sandbox):
    name = marker()
    with sandbox.load(attacks.linger(name)) as candidate:
        candidate.dot([1], [1])
    assert checked(sandbox) == []
    assert left_after(name, settle=0.0) == []  # gone when the check of its end is done


def test_a_child_killed_for_its_time_takes_every_process_along(sandbox):
    name = marker()
    source = attacks.double_fork(name) + "\ndef spin():\n    while True:\n        pass\n"
    with sandbox.load(source, limits=Limits(**{**LIMITS.as_dict(), "call_seconds": 1})) as candidate:
        with pytest.raises(CandidateError, match="longer than"):
            candidate.spin()
        assert checked(sandbox) == []
        assert left_after(name, settle=0.0) == []  # the timeout's kill, before the candidate closes


def test_each_child_has_its_own_uid_and_cgroup(sandbox):
    source = "import os\ndef ids():\n    return [os.getuid(), os.getgid(), open('/proc/self/cgroup').read()]\n"
    with sandbox.load(source) as first, sandbox.load(source) as second:
        a, b = first.ids(), second.ids()
    assert a[0] != b[0] and a[0] not in (0, 65534) and a[0] == a[1]
    assert a[2] != b[2]
    for membership in (a[2], b[2]):  # the keeper joined its own cgroups before it forked the runner
        lines = [line.split(":", 2) for line in membership.splitlines()]
        held = {key for _, controllers, path in lines for key in controllers.split(",") if "coursegen-" in path}
        assert {"pids", "memory"} <= held or any(c == "" and "coursegen-" in p for _, c, p in lines), membership
    tokens = sandbox.isolation
    assert "pidfd" in tokens and "cgroup-pids-max" in tokens and "cgroup-memory-max" in tokens


def test_the_processes_of_a_child_are_bounded(sandbox):
    source = attacks.HOG_PROCESSES + "\ndef made():\n    return children\n"
    with sandbox.load(source) as hog:
        assert hog.made() <= LIMITS.processes


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_classmate_in_the_next_batch_is_unaffected(tmp_path):
    """Through the real command: batch 1 holds a student whose processes try to stay and to hold
    every process slot; batch 2's honest student must get what it gets alone."""
    name = marker()
    first, second = tmp_path / "batch1", tmp_path / "batch2"
    for folder in (first / "mallory", second / "alice"):
        folder.mkdir(parents=True)
    wrong = "\ndef relative_positions(seq_len):\n    return 0\n"
    (first / "mallory" / "positions.py").write_text(
        attacks.linger(name) + attacks.HOG_PROCESSES.replace("def dot", "def _dot") + wrong, encoding="utf-8"
    )
    honest = (ROOT / "solutions" / "positions.py").read_text(encoding="utf-8")
    (second / "alice" / "positions.py").write_text(
        honest + "\n" + attacks.NEEDS_PROCESSES.replace("def dot", "def _dot") + "\n_made = spawn(12)\n",
        encoding="utf-8",
    )
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS="call_seconds=3,import_seconds=5,processes=24")

    def grade(batch: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "coursegen", "grade", str(batch), "--root", str(ROOT), "--format", "json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    alone = grade(second)
    attacked = grade(first)
    assert attacked.returncode == 0, attacked.stderr[-2000:]
    lingering = left_after(name)
    after = grade(second)
    assert lingering == [], "the attacker's processes outlived `coursegen grade`"
    assert after.returncode == alone.returncode == 0
    assert after.stdout == alone.stdout


def test_a_pty_of_one_child_cannot_be_opened_by_another(sandbox):
    with sandbox.load(attacks.PTY_OPENER) as opener, sandbox.load(attacks.PTY_SNOOP) as snoop:
        path = opener.open_pty()  # a pty works in the child (its own devpts)
        opener.write("hidden inputs\n")
        assert os.path.basename(path) not in snoop.list_ptys()
        with pytest.raises(CandidateError, match="FileNotFoundError|PermissionError"):
            snoop.open_pty(path)
        host = {f"/dev/pts/{n}" for n in os.listdir("/dev/pts") if n != "ptmx"}
        for other in sorted(host)[:4]:  # nor a pty of the host's
            with pytest.raises(CandidateError, match="FileNotFoundError|PermissionError"):
                snoop.open_pty(other)


def test_clone_with_namespace_flags_is_refused(sandbox):
    with sandbox.load(attacks.RAW_CLONE) as child:
        for names in (["user"], ["user", "net"], ["net"], ["ns"], ["pid"], ["ipc"], ["uts"], ["cgroup"]):
            assert child.clone(names) < 0, f"clone({names}) succeeded in the child"
        assert child.clone3() == -38  # ENOSYS: libc falls back to clone, which is filtered
        assert child.fork_still_works() == 7
        assert child.thread_still_works() == [1]


def test_a_folder_created_later_under_var_is_invisible(sandbox):
    with sandbox.load(attacks.READ_LATER) as child:
        child.look("/var/nothing/yet")  # the child is running before the folder exists
        folder = Path("/var/lib") / f"coursegen-later-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        try:
            (folder / "grades.csv").write_text("alice,10\n")
            (folder / "grades.csv").chmod(0o644)
            folder.chmod(0o755)
            names, content = child.look(str(folder / "grades.csv"))
            assert content in ("FileNotFoundError", "PermissionError")
            assert "grades.csv" not in names
            names, _ = child.look("/var/lib/x")
            assert folder.name not in names
        finally:
            shutil.rmtree(folder)


def test_a_leftover_marks_the_submission_and_ends_the_batch():
    """What the session does when the sandbox's check finds a process left (a stand-in sandbox
    reports one: no real child can be made to survive any more)."""
    from grader.reporting.results import CheckResult
    from grader.running.session import GradingDriver

    class Leaky:
        def __init__(self):
            self.left = ["1 process(es) of the sandboxed child still alive after it was killed (host pids 4242)"]

        def take_leftovers(self):
            found, self.left = self.left, []
            return found

        def close(self):
            pass

    driver = GradingDriver(
        jobs=[], on_result=lambda job, results: None, course=FIRST_COURSE, seed=1, sandbox_factory=Leaky
    )
    driver._sandbox = Leaky()
    results = driver._contained([CheckResult("test_a", "dot", 1.0, 1.0, "passed")])
    assert results[0].problem == "leftover" and "host pids 4242" in results[0].output
    assert results[0].score == 1.0  # the student's score is not the grader's failure
    from grader.reporting import problems

    assert problems.run_kinds([r.problem for r in results]) == ["grader_error"]
    driver._sandbox = Leaky()  # the batch's end: the sandbox closes, and the check finds one more
    import types

    driver.pytest_runtestloop(types.SimpleNamespace(items=[]))
    assert driver.error and "outlived its grading" in driver.error and "4242" in driver.error


def test_what_a_killed_grader_left_is_ended_by_the_next_one(tmp_path):
    """A grader killed with SIGKILL cannot end its children; the next grader on the machine ends
    whatever is left in their cgroups before its first child."""
    name = marker()
    script = tmp_path / "grader.py"
    script.write_text(
        "import sys, time\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from grader.sandbox import Sandbox\n"
        "box = Sandbox()\n"
        f"candidate = box.load({attacks.linger(name)!r})\n"
        "candidate.dot([1], [1])\n"
        "print('graded', flush=True)\n"
        "time.sleep(600)\n",
        encoding="utf-8",
    )
    grader = subprocess.Popen(
        [sys.executable, str(script), str(Path(__file__).resolve().parents[2])], stdout=subprocess.PIPE, text=True
    )
    try:
        assert grader.stdout is not None and grader.stdout.readline().strip() == "graded"
        grader.kill()
        grader.wait(timeout=30)
        assert started(name), "the attack did not outlive its killed grader (nothing to test)"
        import grader.sandbox.containment as containment

        containment._roots = None  # a new grading process: it sweeps once, before its first child
        with Sandbox(course=FIRST_COURSE, limits=LIMITS) as box, box.load("x = 1\n"):
            pass
        assert left_after(name, settle=2.0) == []
    finally:
        if grader.poll() is None:
            grader.kill()
        attacks.kill_all(attacks.processes_named(name))
