"""Red team, round 2: new attacks of each class issue 11 named, against its hardening.

One batch graded by the real command (`coursegen grade BATCH --workers 2 --gradebook GB`),
the batch under /var/lib, on the same file system as the course (so hard links to the
references are possible), holding an honest student and the attacks of round2_attacks.py.
The exported Gradescope runner gets the same file-system attacks under submission/.
Each test asserts the safe outcome.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import round2_attacks as attacks
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)

ROOT = Path(__file__).resolve().parents[2]
LIMITS = "call_seconds=2,import_seconds=5,cpu_seconds=8,memory_mb=512,output_kb=32,max_restarts=8"


def server_folder(fallback: Path) -> Path:
    try:
        folder = Path("/var/lib") / f"coursegen-redteam2-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        folder.chmod(0o755)
        return folder
    except OSError:
        return fallback


def grade(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS=LIMITS)
    args = [*args, "--root", str(ROOT)] if args[0] == "grade" else args  # run from another folder
    return subprocess.run(
        [sys.executable, "-m", "coursegen", *args], cwd=cwd, env=env, capture_output=True, timeout=1200, check=False
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("round2")
    base = server_folder(work)
    batch = base / "batch"
    batch.mkdir()
    facts: dict = {}
    for build in attacks.BUILDERS:
        build(batch, facts)
    if os.stat(batch).st_dev != os.stat(ROOT / "solutions").st_dev:
        pytest.skip("the batch folder is not on the course's file system: no hard link possible")
    report = work / "results.json"
    done = grade(
        [
            "grade",
            str(batch),
            "--workers",
            "2",
            "--gradebook",
            str(work / "gradebook.sqlite"),
            "--format",
            "json",
            "--output",
            str(report),
        ],
        cwd=work,
    )
    results = {}
    if done.returncode == 0:
        for entry in json.loads(report.read_text(encoding="utf-8")):
            results.setdefault(entry["student"], []).append(entry)
    yield {"done": done, "results": results, "batch": batch}
    attacks.remove_deep_tree(batch)
    shutil.rmtree(base if base != work else batch, ignore_errors=True)


def problems(entries: list[dict]) -> str:
    return " ".join(p for entry in entries for p in entry["problems"])


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_batch_exits_zero_and_the_honest_student_gets_full_marks(run):
    assert run["done"].returncode == 0, run["done"].stderr[-3000:]
    (honest,) = run["results"]["honest_rope"]
    assert honest["score"] == honest["max_score"] > 0


@pytest.mark.parametrize("student", ["hardlink_in_folder", "hardlink_top_alibi"])
def test_a_hard_link_to_the_references_is_refused(run, student):
    """O_NOFOLLOW stops symbolic links only: a second name of solutions/rope.py was full marks."""
    (entry,) = run["results"][student]
    assert entry["score"] == 0 and entry["max_score"] > 0
    assert "hard link" in problems([entry]), entry["problems"]


def test_a_deeply_nested_student_folder_does_not_stop_the_batch(run):
    """os.walk recursed once per folder: 1 100 nested folders ended the batch with RecursionError."""
    entries = run["results"]["deep_tree"]
    assert [e["score"] for e in entries] == [0]
    assert "nested more than" in problems(entries)


def test_a_folder_of_many_copies_is_refused_not_graded_copy_by_copy(run):
    """70 copies of rope.py in one student's folder were 70 full gradings (an hour for 2 000)."""
    entries = run["results"]["many_copies"]
    assert len(entries) == 1 and entries[0]["score"] == 0
    assert "more than" in problems(entries)


def test_a_socket_named_like_a_submission_scores_zero_with_its_reason(run):
    (entry,) = run["results"]["socket_named_rope"]
    assert entry["score"] == 0 and entry["max_score"] > 0
    assert "could not be opened" in problems([entry])


# ---- children running at the same time share nothing -----------------------------------------

LISTENER = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
KEEP = []

def apply_rope(note):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(b"\0coursegen-redteam-" + note.encode())       # abstract: no file anywhere
    server.listen(1)
    KEEP.append(server)
    made = {"sem": libc.semget(0x5EC0DE, 1, 0o1666) >= 0,
            "mq": rt.mq_open(("/coursegen-" + note).encode(), 0o100 | 0o2, 0o666, None) >= 0}
    with open("/dev/shm/coursegen-" + note, "w") as handle:
        handle.write(note)
    return made
"""

TALKER = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)

def apply_rope(note):
    found = []
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(b"\0coursegen-redteam-" + note.encode())
        found.append("abstract socket")
    except OSError:
        pass
    if libc.semget(0x5EC0DE, 1, 0) >= 0:
        found.append("semaphore")
    if rt.mq_open(("/coursegen-" + note).encode(), 0o2, 0, None) >= 0:
        found.append("message queue")
    if os.path.exists("/dev/shm/coursegen-" + note):
        found.append("/dev/shm")
    return found
"""


def test_two_children_alive_at_once_cannot_reach_each_other():
    """The earlier test covers a later child; this one talks while the first child still runs."""
    from grader.sandbox import Sandbox

    note = uuid.uuid4().hex[:12]
    with (
        Sandbox(course=FIRST_COURSE) as first,
        Sandbox(course=FIRST_COURSE) as second,
        first.load(LISTENER) as listener,
    ):
        # since issue 35 the child may not even create them (System V IPC and POSIX message
        # queues are outside the allow-list of kernel objects); the abstract socket and /dev/shm
        # file are still made, and still unreachable
        assert listener.apply_rope(note) == {"sem": False, "mq": False}
        with second.load(TALKER) as talker:
            assert talker.apply_rope(note) == []


# The exported Gradescope runner gets the same file-system attacks in
# tests/export/test_deployed_gradescope.py (hard link, deep folder tree), on the deployed bundle.


# ---- hidden checks' inputs through state kept in the child -------------------------------------


def test_a_visible_check_never_shows_what_the_code_saw_in_a_hidden_one(tmp_path):
    (tmp_path / "alibi.py").write_text(attacks.HIDDEN_INPUTS_NOTED)
    done = grade(["grade", str(tmp_path / "alibi.py"), "--format", "json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    hidden_slopes = [t for t in result["tests"] if t["exercise"] == "alibi_slopes" and t["hidden"]]
    assert hidden_slopes and all(t["status"] == "passed" for t in hidden_slopes)  # the notes were taken
    shown = [t["output"] for t in result["tests"] if not t["hidden"] and "NOTED[" in t["output"]]
    assert shown, "the probe's message did not reach the report"
    for output in shown:
        noted = output.split("NOTED[", 1)[1].split("]", 1)[0].split(",")
        assert len(noted) == attacks.VISIBLE_SLOPES_CALLS, output  # only the visible checks' calls


# ---- no effort, shaped like the answer ---------------------------------------------------------


@pytest.mark.parametrize("module", sorted(attacks.SHAPED_CONSTANTS))
def test_a_constant_of_the_right_shape_earns_nothing(run, module):
    (entry,) = run["results"][f"shaped_{module}"]
    passed = [t["name"] for t in entry["tests"] if t["status"] == "passed"]
    assert entry["max_score"] > 0 and (entry["score"], passed) == (0, [])


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_json_report_says_nothing_of_what_went_wrong_in_a_hidden_check(tmp_path):
    (tmp_path / "alibi.py").write_text(attacks.SLOW_ONLY_WHEN_HIDDEN)
    done = grade(["grade", str(tmp_path / "alibi.py"), "--format", "json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    failed = [t for t in result["tests"] if t["status"] != "passed"]
    assert failed and all(t["hidden"] for t in failed)  # only the hidden long check failed
    assert result["problem_kinds"] == [], result["problem_kinds"]


# ---- swaps between discovery and reading (TOCTOU) ------------------------------------------------


@pytest.mark.parametrize("swap", ["folder_to_symlink", "file_to_hard_link", "file_to_symlink"])
def test_a_swap_after_discovery_is_refused_when_the_file_is_read(tmp_path, swap):
    """The batch lists the folders, then reads each file later: what is there when it is read counts."""
    from grader.scaleout.batch import discover
    from grader.reading.submission import load_submission

    batch = tmp_path / "batch"
    (batch / "alice").mkdir(parents=True)
    (batch / "alice" / "rope.py").write_text(attacks.IDENTITY_ROPE)
    (entry,) = discover([batch])
    reference = ROOT / "solutions" / "rope.py"
    if swap == "folder_to_symlink":
        decoy = tmp_path / "decoy"
        decoy.mkdir()
        shutil.copy(reference, decoy / "rope.py")
        shutil.rmtree(batch / "alice")
        (batch / "alice").symlink_to(decoy)
    elif swap == "file_to_hard_link":
        if os.stat(tmp_path).st_dev != os.stat(reference).st_dev:
            pytest.skip("no hard link across file systems")
        (batch / "alice" / "rope.py").unlink()
        os.link(reference, batch / "alice" / "rope.py")
    else:
        (batch / "alice" / "rope.py").unlink()
        (batch / "alice" / "rope.py").symlink_to(reference)
    try:
        submission = load_submission(entry.path, FIRST_COURSE, root=entry.root)
    finally:
        (batch / "alice" / "rope.py").unlink()  # never leave a second name of the reference behind
    assert submission.fatal and "link" in str(submission.fatal), submission.fatal
    assert submission.code == ""
