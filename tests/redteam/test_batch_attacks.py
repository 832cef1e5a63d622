"""Red team, issue 11: no single submission can stop, fool or read across a batch.

One batch, graded by the real command (`coursegen grade BATCH --workers 2 --gradebook GB`),
holds honest students and an attack of every class: files that break parsing, replies that
flood the grader, links to the references, a snoop looking for the grader's files and paths,
hostile student ids and code that implements nothing. The batch, the gradebook and the report
lie under /var/lib (a folder the child keeps, as a grading server would use) where root may
write there. Each test asserts the safe outcome.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import batch_attacks as attacks
import pytest
from tests.first_course import COURSE as FIRST_COURSE  # the sandbox preloads what it requires (torch)

ROOT = Path(__file__).resolve().parents[2]
LIMITS = "call_seconds=2,import_seconds=5,cpu_seconds=8,memory_mb=512,output_kb=32,max_restarts=8"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PEAK_RSS_LIMIT_MB = 1536  # every grader process (parent, grading workers, warm workers); unbounded: ~12 GB


def server_folder(fallback: Path) -> Path:
    """A folder under /var/lib (kept visible to the child, unlike /tmp) when we may write there."""
    try:
        folder = Path("/var/lib") / f"coursegen-redteam-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        folder.chmod(0o755)
        return folder
    except OSError:
        return fallback


def installed_solutions() -> str:
    spec = importlib.util.find_spec("solutions")
    return str(Path(spec.origin).parent / "rope.py") if spec and spec.origin else str(ROOT / "solutions" / "rope.py")


# Runs a command and then writes the largest peak RSS among its descendants: measured in this fresh
# process, so no earlier child of the test process can hide the figure.
PEAK_OF_CHILDREN = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
sys.stderr.write(f"\\npeak-rss-kb {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n")
sys.exit(code)
"""


def grade(args: list[str], cwd: Path, *, measure: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS=LIMITS)
    args = [*args, "--root", str(ROOT)] if args[0] == "grade" else args  # run from another folder
    command = [sys.executable, "-m", "coursegen", *args]
    if measure:
        command = [sys.executable, "-c", PEAK_OF_CHILDREN, *command]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=1200, check=False)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("batch-attacks")
    base = server_folder(work)
    gradebook_marker, batch_marker = f"records-{uuid.uuid4().hex}", f"batch-{uuid.uuid4().hex}"
    batch, records = base / batch_marker, base / gradebook_marker
    batch.mkdir()
    records.mkdir()
    report = records / "results.json"
    report_secret = f"old-report-{uuid.uuid4().hex}"
    report.write_text(json.dumps({"secret": report_secret}))  # a previous run's report
    solution_notebook = work / "rope-alibi-solution.ipynb"
    solution_notebook.write_text(
        attacks.notebook(
            [
                attacks.code_cell(
                    (ROOT / "solutions" / "rope.py").read_text() + "\n" + (ROOT / "solutions" / "alibi.py").read_text()
                )
            ]
        )
    )
    facts = {
        "gradebook": records / "gradebook.sqlite",
        "report": report,
        "classmate_secret": f"classmate-secret-{uuid.uuid4().hex}",
        "solution_notebook": solution_notebook,
        "installed_solutions": installed_solutions(),
        "gradebook_marker": gradebook_marker,
        "batch_marker": batch_marker,
    }
    for build in attacks.BUILDERS:
        build(batch, facts)
    done = grade(
        [
            "grade",
            str(batch),
            "--workers",
            "2",
            "--gradebook",
            str(facts["gradebook"]),
            "--format",
            "json",
            "--output",
            str(report),
        ],
        cwd=work,
        measure=True,
    )
    peak_kb = int(done.stderr.decode().rsplit("peak-rss-kb ", 1)[1])
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    results = {entry["student"]: entry for entry in json.loads(text)} if done.returncode == 0 else {}
    facts.update(
        done=done,
        report_text=text,
        results=results,
        batch=batch,
        work=work,
        report_secret=report_secret,
        peak_mb=peak_kb / 1024,
    )
    yield facts
    if base != work:
        shutil.rmtree(base, ignore_errors=True)


def visible_output(entry: dict) -> str:
    return "\n".join([*entry["problems"], *(t["output"] for t in entry["tests"])])


# ---- the batch goes on -----------------------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_batch_exits_zero_and_reports_every_submission(run):
    assert run["done"].returncode == 0, run["done"].stderr[-3000:]
    from grader.textsafe import display_name

    expected = set()
    for name in os.listdir(run["batch"]):
        path = run["batch"] / name
        expected.add(display_name(Path(name).stem if path.is_symlink() or not path.is_dir() else name))
    assert expected == set(run["results"])


def test_honest_students_in_the_same_batch_get_full_marks(run):
    for name in ("honest_rope", "honest_alibi", "honest_tokens"):
        entry = run["results"][name]
        assert entry["score"] == entry["max_score"] > 0, visible_output(entry)


UNREADABLE = sorted(p.split("/")[0] for p in attacks.PARSING if not p.startswith("exercise_is_a_list"))


@pytest.mark.parametrize("student", UNREADABLE + ["not_utf8_source", "fifo_named_rope"])
def test_a_file_that_breaks_parsing_scores_zero_with_a_one_line_reason(run, student):
    entry = run["results"][student]
    assert entry["score"] == 0
    assert entry["problems"] and all("\n" not in p and len(p) < 400 for p in entry["problems"]), entry["problems"]
    assert "Traceback" not in visible_output(entry)


def test_odd_metadata_types_are_ignored_and_the_code_is_graded(run):
    entry = run["results"]["exercise_is_a_list"]  # found by the names its cell defines
    assert entry["tests"] and entry["max_score"] > 0 and entry["score"] == 0  # the identity earns nothing


def test_an_unreadable_lesson_notebook_keeps_its_lessons_maximum(run):
    from ruamel.yaml import YAML

    entry = run["results"]["not_json"]
    # the lesson's own exercise list (its YAML); an honest .py is graded on its whole module, which
    # may hold exercises of other lessons too, so only the checks of this lesson's exercises count
    lesson = YAML(typ="safe").load((ROOT / "content" / "lessons" / "rope-alibi.yaml").read_text(encoding="utf-8"))
    exercises = {e["name"] for e in lesson["exercises"]}
    lesson_max = sum(
        t["max_score"]
        for name in ("honest_rope", "honest_alibi")
        for t in run["results"][name]["tests"]
        if t["exercise"] in exercises
    )
    assert exercises and lesson_max > 0
    assert (entry["score"], entry["max_score"]) == (0, lesson_max)


def test_a_file_name_that_is_not_utf8_is_graded_under_an_escaped_id(run):
    entry = run["results"]["mal\\xffory"]
    assert entry["score"] == 0 and entry["max_score"] > 0 and entry["tests"]


def test_the_grader_peak_memory_stays_bounded(run):
    assert run["peak_mb"] < PEAK_RSS_LIMIT_MB, f"peak RSS {run['peak_mb']:.0f} MB"


# ---- replies are bounded ---------------------------------------------------------------------


@pytest.mark.parametrize("student", sorted(attacks.FRAME_ATTACKS))
def test_a_flooding_reply_kills_the_child_and_fails_the_call(run, student):
    entry = run["results"][student]
    assert entry["score"] == 0
    assert "could not read" in visible_output(entry)


# ---- links -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "student", ["link_file", "link_top", "link_folder", "link_inside", "link_to_classmate", "link_notebook"]
)
def test_a_link_is_refused_with_its_reason(run, student):
    entry = run["results"][student]
    assert entry["score"] == 0
    assert "symbolic link" in " ".join(entry["problems"]), entry["problems"]
    assert entry["max_score"] > 0 or student in ("link_top", "link_folder", "link_inside")  # named as no module


# ---- hidden files and paths ------------------------------------------------------------------


def test_the_child_reads_no_grader_file_and_holds_none_of_their_paths(run):
    output = visible_output(run["results"]["snoop"])
    assert "SEEN[" in output, output  # the probe really ran and reported
    seen = output.split("SEEN[", 1)[1].split("]", 1)[0]
    assert seen == "", f"the child could see: {seen}"


def test_no_secret_reaches_any_report(run):
    for secret in (run["classmate_secret"], run["report_secret"]):
        assert secret not in run["report_text"]


# ---- student ids -----------------------------------------------------------------------------


def test_gradebook_csv_cells_never_start_a_formula(run):
    done = grade(["gradebook", "export", "--csv", "--gradebook", str(run["gradebook"])], cwd=run["work"])
    assert done.returncode == 0, done.stderr[-2000:]
    rows = list(csv.reader(io.StringIO(done.stdout.decode("utf-8"))))
    cells = [cell for row in rows[1:] for cell in row[:2] + row[4:]]
    assert len(rows) - 1 >= len(attacks.HOSTILE_IDS)
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    assert any(cell.startswith("'=HYPERLINK") for cell in cells)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_markdown_and_text_reports_show_hostile_ids_as_data(run):
    args = ["grade", str(run["batch"]), "--workers", "1", "--gradebook", str(run["gradebook"])]
    markdown = grade([*args, "--format", "markdown"], cwd=run["work"])
    text = grade([*args, "--format", "text"], cwd=run["work"])
    assert markdown.returncode == text.returncode == 0, markdown.stderr[-2000:]
    md = markdown.stdout.decode("utf-8")
    assert "<img" not in md and "## honest_rope: 10 of 10" not in md
    assert not [line for line in md.splitlines() if line.startswith("10 of 10")]
    headers = [line for line in text.stdout.decode("utf-8").splitlines() if line and not line.startswith(" ")]
    assert len(headers) == len(run["results"])  # one header line per submission, none injected
    assert not [line for line in headers if line.startswith(("## ", "10 of 10", "<img"))]


# ---- no effort -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(attacks.NO_EFFORT))
def test_code_that_implements_nothing_earns_nothing(run, kind):
    earned = {
        name: (entry["score"], [t["name"] for t in entry["tests"] if t["status"] == "passed"])
        for name, entry in run["results"].items()
        if name.startswith(f"noeffort_{kind}_")
    }
    assert len(earned) == len(attacks.MODULES)
    assert {name: e for name, e in earned.items() if e[0] > 0} == {}


# ---- memory of the trusted side, measured in a fresh process ---------------------------------

PARSE_PROBE = """
import json, os, sys
from pathlib import Path
from grader.course import Course
from grader.reading.submission import load_submission

def hwm():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) // 1024

folder = Path(sys.argv[1])
course = Course.load(".")
load_submission(folder / "small.py", course)
base = hwm()
for name in sorted(os.listdir(folder)):
    load_submission(folder / name, course)
print(json.dumps({"base": base, "peak": hwm()}))
"""


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_parsing_hostile_files_costs_the_grader_tens_of_mb(tmp_path):
    files = {
        "small.py": attacks.IDENTITY_ROPE,
        "many.py": "x=1\n" * 4_800_000,
        "deep.py": "x = " + "1+" * 45_000 + "1\n",
        "calls.py": "f()\n" * 4_000_000,
        "values.ipynb": "[" + "{}," * 6_000_000 + "{}]",
        "nested.ipynb": "[" * 1_000_000,
        "strings.ipynb": attacks.notebook([attacks.code_cell(["x = 1\n"] * 1_500_000)]),
        "quotes.ipynb": '{"cells": "' + '\\"' * 5_000_000,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [sys.executable, "-c", PARSE_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    memory = json.loads(done.stdout.strip().splitlines()[-1])
    # each file is read whole (up to 20 MB, twice: bytes and text); the syntax tree and JSON are bounded
    assert memory["peak"] - memory["base"] < 150, memory


FRAME_PROBE = """
import json, sys
import torch
from grader.course import Course
from grader.sandbox import CandidateError, Limits, Sandbox

def hwm():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) // 1024

sources = json.loads(sys.argv[1])
x = torch.zeros(1, 1, 2, 4)
with Sandbox(course=Course.load("."), limits=Limits(call_seconds=3, import_seconds=5)) as box:
    with box.load("def apply_rope(x, positions=None, base=10000.0):\\n    return x\\n") as warm:
        warm.apply_rope(x)
    base = hwm()
    failures = []
    for source in sources:
        with box.load(source) as candidate:
            try:
                candidate.apply_rope(x)
                failures.append("no error")
            except CandidateError as error:
                failures.append(str(error))
print(json.dumps({"base": base, "peak": hwm(), "failures": failures}))
"""


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_flooding_child_costs_the_grader_tens_of_mb(tmp_path):
    sources = [attacks.frame_source(body) for body in attacks.FRAME_ATTACKS.values()]
    done = subprocess.run(
        [sys.executable, "-c", FRAME_PROBE, json.dumps(sources)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    memory = json.loads(done.stdout.strip().splitlines()[-1])
    assert all("could not read" in failure for failure in memory["failures"]), memory["failures"]
    assert memory["peak"] - memory["base"] < 64, memory


# ---- children share nothing ------------------------------------------------------------------

WRITER = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p

def apply_rope(note):
    data = note.encode()
    results = {}
    for ring, name in ((-4, "user"), (-3, "session"), (-5, "user_session")):
        key = libc.syscall(248, b"user", b"coursegen-note", data, len(data), ctypes.c_int(ring))   # add_key
        results[name] = ctypes.get_errno() if key < 0 else 0
    shm = libc.shmget(0x5EC12E7, 4096, 0o1666)                        # IPC_CREAT | 0666
    results["shm"] = 0 if shm >= 0 else ctypes.get_errno()
    if shm >= 0:
        address = libc.shmat(shm, None, 0)
        ctypes.memmove(ctypes.c_void_p(address), data, len(data))
    for folder in ("/dev/shm", "/tmp", "/var/tmp"):
        with open(os.path.join(folder, "coursegen-note"), "w") as handle:
            handle.write(note)
    return results
"""

READER = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p

def apply_rope(x=None):
    found = []
    for ring in (-4, -3, -5):
        key = libc.syscall(249, b"user", b"coursegen-note", None, ctypes.c_int(ring))     # request_key
        if key >= 0:
            found.append(f"key in {ring}")
    buffer = ctypes.create_string_buffer(4096)
    if libc.syscall(250, 6, ctypes.c_int(-4), buffer, 4096) > 0:           # KEYCTL_READ of @u
        found.append("user keyring readable")
    shm = libc.shmget(0x5EC12E7, 4096, 0)
    if shm >= 0:
        found.append("shm " + ctypes.string_at(libc.shmat(shm, None, 0), 40).decode("latin-1"))
    for folder in ("/dev/shm", "/tmp", "/var/tmp"):
        if os.path.exists(os.path.join(folder, "coursegen-note")):
            found.append(folder)
    return found
"""


def test_one_child_can_leave_nothing_that_a_later_child_reads():
    from grader.sandbox import Sandbox

    note = f"note-{uuid.uuid4().hex}"
    with Sandbox(course=FIRST_COURSE) as first:
        assert {"seccomp", "own-session-keyring", "ipc-namespace", "private-tmp"} <= set(first.isolation)
        with first.load(WRITER) as writer:
            attempts = writer.apply_rope(note)
    assert attempts["user"] == attempts["session"] == attempts["user_session"] == 1  # EPERM from seccomp
    with Sandbox(course=FIRST_COURSE) as later:  # a separate grading run
        with later.load(READER) as reader:
            assert reader.apply_rope() == []


DENIED = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CALLS = {"add_key": (248, b"user", b"k", b"v", 1, -4), "request_key": (249, b"user", b"k", None, -4),
         "keyctl": (250, 0, -3, 0), "ptrace": (101, 0, 0, 0, 0), "bpf": (321, 0, None, 0),
         "userfaultfd": (323, 0), "perf_event_open": (298, None, 0, -1, -1, 0), "unshare": (272, 0x10000000),
         "mount": (165, b"none", b"/tmp", b"tmpfs", 0, None), "kexec_load": (246, 0, 0, None, 0)}

def apply_rope(x=None):
    errors = {}
    for name, (number, *args) in CALLS.items():
        args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
        result = libc.syscall(ctypes.c_long(number), *args)
        errors[name] = ctypes.get_errno() if result < 0 else 0
    return errors
"""


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="system call numbers of x86_64")
def test_seccomp_denies_the_calls_no_exercise_needs():
    from grader.sandbox import Sandbox

    with Sandbox(course=FIRST_COURSE) as box:
        with box.load(DENIED) as candidate:
            errors = candidate.apply_rope()
    assert errors == {name: 1 for name in errors}, errors  # EPERM for every one


def test_outside_the_sandbox_the_keyring_call_works_so_the_denial_is_the_filters():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    key = libc.syscall(ctypes.c_long(248), b"user", b"coursegen-probe", b"x", ctypes.c_long(1), ctypes.c_long(-3))
    if key < 0:
        pytest.skip(f"add_key is refused here even outside the sandbox (errno {ctypes.get_errno()})")
    libc.syscall(ctypes.c_long(250), ctypes.c_long(3), ctypes.c_long(key))  # KEYCTL_REVOKE


# ---- the references must be hidden, or grading does not start --------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_grading_refuses_to_start_when_the_references_would_be_readable():
    from grader.sandbox import Sandbox, SandboxError

    reference = ROOT / "solutions" / "rope.py"
    folder = server_folder(Path(tempfile.mkdtemp()))
    try:
        secret = folder / "references"
        secret.mkdir()
        (secret / "rope.py").write_text("SECRET = 1\n")
        secret.chmod(0o755)
        os.chmod(secret / "rope.py", 0o644)
        # without namespaces nothing is hidden: a refusing sandbox names what it could read
        with Sandbox(
            course=FIRST_COURSE, namespaces=False, hide=(str(secret / "rope.py"),), refuse_readable=True
        ) as box:
            with pytest.raises(SandboxError, match="refusing to grade.*could read"):
                box.load("def f():\n    return 1\n")
        with Sandbox(
            course=FIRST_COURSE, hide=(str(secret / "rope.py"),)
        ) as box:  # with them, it is hidden and grading runs
            with box.load(f"def f():\n    import os\n    return os.path.exists({str(reference)!r})\n") as ok:
                assert ok.f() is False
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_course_installed_inside_the_python_installation_is_hidden(monkeypatch):
    """An exported Gradescope package installs solutions/ into its venv's site-packages (coursegen's
    own distribution installs no course), which the child must see: the folder of the references is
    covered inside the Python installation bound back."""
    from grader.sandbox import Sandbox
    from grader.sandbox import sandbox as sandbox_module

    folder = server_folder(Path(tempfile.mkdtemp()))
    try:
        site = folder / "site-packages"
        (site / "solutions").mkdir(parents=True)
        (site / "solutions" / "rope.py").write_text("ANSWER = 42\n")
        (site / "visible.py").write_text("PUBLIC = 1\n")
        for path in (folder, site, site / "solutions"):
            path.chmod(0o755)
        real_paths = sandbox_module.python_paths()
        monkeypatch.setattr(sandbox_module, "python_paths", lambda: [*real_paths, str(site)])
        monkeypatch.setattr(sandbox_module, "installed_course_folders", lambda: [str(site / "solutions")])
        with Sandbox(course=FIRST_COURSE) as box:
            probe = (
                f"import os\ndef f():\n    return [os.path.exists({str(site / 'visible.py')!r}), "
                f"os.path.exists({str(site / 'solutions' / 'rope.py')!r})]\n"
            )
            with box.load(probe) as candidate:
                assert candidate.f() == [True, False]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_grading_one_linked_file_refuses_it(tmp_path):
    """The single-file path (`coursegen grade rope.py`, as the Classroom workflow runs it)."""
    link = tmp_path / "rope.py"
    link.symlink_to(ROOT / "solutions" / "rope.py")
    done = grade(["grade", str(link), "--format", "json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["score"] == 0 and result["max_score"] > 0
    assert "symbolic link" in " ".join(result["problems"])
