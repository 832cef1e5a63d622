"""`coursegen grade --scheduler`: grading on a real Dask cluster (a scheduler and two worker
processes on 127.0.0.1, started here and ended by each fixture, which also checks that no process
it started outlives it), compared with the local batch; workers and clients killed mid-batch;
workers with another course; a submission that keeps killing its grading process."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

# The `cluster` extra is part of the `test` extra: without it these tests fail rather than skip.
import dask
import distributed
import psutil
from click.testing import CliRunner

from coursegen.cli import main
from grader.scaleout.cluster import ClusterError, chunk_size_for, read_reply
from grader.reporting.gradebook import Gradebook
from tests.first_course import COURSE
from tests.nonempty import nonempty

# Minutes of grading on real clusters: started before the short files under pytest-xdist, and the
# two tests that start clusters of their own run apart from the file's shared cluster (conftest.py).
# The tests on real clusters are in the slow lane (.ci/run runs them); the fast lane grades on a
# cluster in its own process (test_grader_cluster_in_process.py) and keeps this file's units.
pytestmark = pytest.mark.xdist_first
REAL_CLUSTER = pytest.mark.slow  # scheduler and worker processes, the first course graded: minutes

ROOT = Path(__file__).resolve().parents[2]
COURSEGEN = str(Path(sys.executable).parent / "coursegen")
MODULES = ("tokens", "rope", "positions", "alibi")


@contextmanager
def local_cluster(n_workers: int = 2, **config):
    """A scheduler and two worker processes (with their nannies) on 127.0.0.1; on exit every process
    started meanwhile (workers, their sandboxes, commands run against the cluster) must be gone."""
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # this interpreter's own helper: it lives as long as the test process
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with dask.config.set(config):  # held while the cluster runs: some settings are read then
        cluster = distributed.LocalCluster(
            processes=True,
            n_workers=n_workers,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            protocol="tcp",
        )
        started: list = []
        try:
            assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
            yield cluster
        finally:
            started = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
            cluster.close()
            _, alive = psutil.wait_procs(started, timeout=60)
            alive = [(p, _command(p)) for p in alive if _running(p)]
            for process, _ in alive:
                process.kill()
            assert not alive, f"processes left running after the cluster closed: {[c for _, c in alive]}"


def _running(process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE  # a zombie has ended; its parent reaps it
    except psutil.NoSuchProcess:
        return False


def _command(process) -> str:
    try:
        return f"{process.pid}: {' '.join(process.cmdline())[:200]}"
    except psutil.Error:
        return str(process.pid)


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as running:
        yield running


def worker_pids(cluster) -> dict[str, int]:
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        return client.run(os.getpid)


def reference(module: str) -> str:
    return (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")


def submissions(folder: Path, count: int = 0, secrets: tuple[str, ...] = ()) -> Path:
    """References, stubs, a catalogued mistake, an LMS-renamed file, a notebook-less folder, a
    file that is not UTF-8, one that kills its sandboxed child, one that probes `secrets`; then
    `count` more references."""
    from tests.first_course import catalogue

    folder.mkdir(parents=True)
    for module in MODULES:
        (folder / f"ref_{module}").mkdir()
        (folder / f"ref_{module}" / f"{module}.py").write_text(reference(module))
        (folder / f"stub_{module}").mkdir()
        (folder / f"stub_{module}" / f"{module}.py").write_text((ROOT / "exercises" / f"{module}.py").read_text())
    mistake = catalogue("tokens")[0]
    (folder / "mistaken").mkdir()
    (folder / "mistaken" / "tokens.py").write_text(reference("tokens") + "\n\nimport torch.nn as nn\n" + mistake.source)
    (folder / "smith_123_rope-1.py").write_text(reference("rope"))
    (folder / "empty").mkdir()
    (folder / "latin1_tokens.py").write_bytes(b"def encode(tokens, vocab):\n    return []  # \xe9\n")
    (folder / "crasher_tokens.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    for name, paths in (("prober_tokens.py", secrets), ("control_tokens.py", (os.__file__,))):
        probe = "".join(
            f"try:\n    open({s!r}, 'rb').read(1)\nexcept OSError:\n    pass\nelse:\n    raise SystemExit('read {s}')\n"
            for s in paths
        )
        (folder / name).write_text(reference("tokens") + "\n\n" + probe)
    for i in range(count):
        module = MODULES[i % len(MODULES)]
        (folder / f"more{i:03d}").mkdir()
        (folder / f"more{i:03d}" / f"{module}.py").write_text(reference(module))
    return folder


def grade_command(*args, **options):
    return subprocess.run([COURSEGEN, "grade", *map(str, args)], capture_output=True, text=True, timeout=900, **options)


def latest(book: Path) -> list[dict]:
    with Gradebook(book, create=False) as opened:
        return opened.runs()


def comparable(report: list[dict]) -> list[dict]:
    return sorted(report, key=lambda r: (r["student"], r["submission"]))


# ---- the cluster path gives the local batch's results ---------------------------------------


@REAL_CLUSTER
def test_cli_on_the_cluster_grades_as_the_local_batch_does(cluster, tmp_path):
    on_cluster, local = tmp_path / "cluster.sqlite", tmp_path / "local.sqlite"
    folder = submissions(tmp_path / "subs", secrets=(str(ROOT / "solutions" / "tokens.py"), str(on_cluster)))
    remote = grade_command(
        folder,
        "--scheduler",
        cluster.scheduler_address,
        "--seed",
        "20261201",
        "--gradebook",
        on_cluster,
        "--format",
        "json",
        "-o",
        tmp_path / "cluster.json",
    )
    assert remote.returncode == 0, remote.stderr
    here = grade_command(
        folder,
        "--workers",
        "2",
        "--seed",
        "20261201",
        "--gradebook",
        local,
        "--format",
        "json",
        "-o",
        tmp_path / "local.json",
    )
    assert here.returncode == 0, here.stderr

    cluster_report = json.loads((tmp_path / "cluster.json").read_text())
    local_report = json.loads((tmp_path / "local.json").read_text())
    assert comparable(cluster_report) == comparable(local_report)
    by_student = {r["student"]: r for r in cluster_report}
    for module in MODULES:  # what the course itself says: references earn everything, stubs nothing
        assert by_student[f"ref_{module}"]["score"] == by_student[f"ref_{module}"]["max_score"] > 0
        assert by_student[f"stub_{module}"]["score"] == 0
    assert by_student["smith_123_rope-1"]["score"] == by_student["smith_123_rope-1"]["max_score"] > 0
    assert 0 < by_student["mistaken"]["score"] < by_student["mistaken"]["max_score"]
    assert by_student["crasher_tokens"]["score"] == 0 and by_student["latin1_tokens"]["score"] == 0
    # the sandbox on a Dask worker hides the references and the client's gradebook as it does locally
    assert by_student["prober_tokens"]["score"] == by_student["prober_tokens"]["max_score"] > 0
    assert by_student["control_tokens"]["score"] == 0  # the probe works: a readable file stops it

    runs = latest(on_cluster)
    assert Counter((r["student"], r["submission"]) for r in runs) == Counter(
        (r["student"], r["submission"]) for r in local_report
    )
    assert {r["seed"] for r in runs} == {"20261201"}

    again = grade_command(folder, "--scheduler", cluster.scheduler_address, "--gradebook", on_cluster)
    assert again.returncode == 0, again.stderr
    assert len(latest(on_cluster)) == len(runs)  # resumed: nothing left to grade, nothing re-graded


@REAL_CLUSTER
@pytest.mark.xdist_alone
def test_workers_started_in_an_unrelated_folder_grade_the_course_they_are_handed(tmp_path):
    """The commands of docs/instructors.md (`dask scheduler`, `dask worker --nworkers 2 --nthreads 1`)
    started in an empty folder, nothing of any course in it or on their path; the client grades a copy
    of the course lying elsewhere (`--root`), from a third folder: each worker grades that course, the
    one it is handed (references full marks, stubs zero), and its sandbox hides that course."""
    dask_command = [sys.executable, "-m", "dask"]  # the `dask` command of the environment
    home = tmp_path / "worker-home"
    home.mkdir()
    course = tmp_path / "elsewhere" / "course"
    for part in ("content", "exercises", "solutions", "grader/checks"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    # unlike any other copy (the checkout on the workers' path among them): a worker grading another
    # course than the one handed to it would refuse the batch (its checks hash differs from the client's)
    check = sorted((course / "grader" / "checks").glob("test_*.py"))[0]
    check.write_text(check.read_text(encoding="utf-8") + "\n# this copy only\n", encoding="utf-8")
    address_file = tmp_path / "scheduler.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    started = []
    try:
        started.append(
            subprocess.Popen(
                [
                    *dask_command,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(address_file),
                ],
                cwd=home,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 120
        while not address_file.exists() or not address_file.read_text().strip():
            assert time.monotonic() < deadline and started[0].poll() is None, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        started.append(
            subprocess.Popen(
                [
                    *dask_command,
                    "worker",
                    address,
                    "--nworkers",
                    "2",
                    "--nthreads",
                    "1",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                ],
                cwd=home,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        book = tmp_path / "g.sqlite"
        folder = submissions(tmp_path / "subs", secrets=(str(course / "solutions" / "tokens.py"), str(book)))
        client_folder = tmp_path / "client"
        client_folder.mkdir()
        result = grade_command(
            folder,
            "--root",
            course,
            "--scheduler",
            address,
            "--gradebook",
            book,
            "--format",
            "json",
            "-o",
            tmp_path / "report.json",
            cwd=client_folder,
        )
        assert result.returncode == 0, result.stderr
    finally:
        for process in reversed(started):
            process.send_signal(signal.SIGINT)  # the commands' own clean shutdown
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    leftover = [p for p in psutil.Process().children(recursive=True) if p.pid not in before and _running(p)]
    _, alive = psutil.wait_procs(leftover, timeout=60)
    assert not [p for p in alive if _running(p)], [_command(p) for p in alive]
    report = {r["student"]: r for r in json.loads((tmp_path / "report.json").read_text())}
    for module in MODULES:
        assert report[f"ref_{module}"]["score"] == report[f"ref_{module}"]["max_score"] > 0
        assert report[f"stub_{module}"]["score"] == 0
    assert report["prober_tokens"]["score"] == report["prober_tokens"]["max_score"] > 0
    assert report["control_tokens"]["score"] == 0
    assert Counter((r["student"], r["submission"]) for r in latest(book)) == Counter(
        (r["student"], r["submission"]) for r in report.values()
    )


@REAL_CLUSTER
def test_a_worker_killed_mid_batch_leaves_every_submission_graded_exactly_once(cluster, tmp_path):
    folder = submissions(tmp_path / "subs", count=30)
    from grader.scaleout.batch import discover

    expected = {(entry.student, entry.name) for entry in discover([folder])}
    book = tmp_path / "g.sqlite"
    pids = worker_pids(cluster)
    command = subprocess.Popen(
        [
            COURSEGEN,
            "grade",
            str(folder),
            "--scheduler",
            cluster.scheduler_address,
            "--seed",
            "5",
            "--gradebook",
            str(book),
            "--format",
            "json",
            "-o",
            str(tmp_path / "report.json"),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 600
        while not (book.exists() and latest(book)):
            assert command.poll() is None and time.monotonic() < deadline, "the batch ended before any result"
            time.sleep(0.2)
        recorded_at_kill = len(latest(book))
        victim = sorted(pids.values())[0]
        os.kill(victim, signal.SIGKILL)
        _, errors = command.communicate(timeout=900)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert command.returncode == 0, errors
    assert recorded_at_kill < len(expected), "the worker was killed after the batch had finished"
    runs = latest(book)
    counts = Counter((r["student"], r["submission"]) for r in runs)
    assert set(counts) == expected and set(counts.values()) == {1}
    for run in nonempty(runs):
        if run["student"].startswith(("ref_", "more")):
            assert run["score"] == run["max_score"] > 0, run["student"]
    assert not psutil.pid_exists(victim) or psutil.Process(victim).status() == psutil.STATUS_ZOMBIE
    assert victim not in worker_pids(cluster).values()  # the nanny started a fresh worker


@REAL_CLUSTER
def test_a_client_killed_mid_batch_resumes_from_the_gradebook_exactly_once(cluster, tmp_path):
    folder = submissions(tmp_path / "subs", count=20)
    book = tmp_path / "g.sqlite"
    args = [COURSEGEN, "grade", str(folder), "--scheduler", cluster.scheduler_address, "--gradebook", str(book)]
    first = subprocess.Popen([*args, "--seed", "11"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        while not (book.exists() and len(latest(book)) >= 3):
            assert first.poll() is None and time.monotonic() < deadline, "the batch ended too early"
            time.sleep(0.1)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    interrupted = len(latest(book))
    resumed = grade_command(
        folder,
        "--scheduler",
        cluster.scheduler_address,
        "--gradebook",
        book,
        "--format",
        "json",
        "-o",
        tmp_path / "report.json",
    )
    assert resumed.returncode == 0, resumed.stderr
    runs = latest(book)
    total = len(json.loads((tmp_path / "report.json").read_text()))
    assert 3 <= interrupted < total
    counts = Counter((r["student"], r["submission"]) for r in runs)
    assert len(counts) == total and set(counts.values()) == {1}
    assert {r["seed"] for r in runs} == {"11"}


# ---- refusing work ---------------------------------------------------------------------------


@REAL_CLUSTER
def test_workers_refuse_a_client_whose_checks_differ_naming_both_hashes(cluster, tmp_path):
    from grader.scaleout.batch import checks_hash

    checks = tmp_path / "checks"
    shutil.copytree(ROOT / "grader" / "checks", checks, ignore=shutil.ignore_patterns("__pycache__"))
    first = sorted(checks.glob("test_*.py"))[0]
    first.write_text(first.read_text() + "\n# changed on the client only\n")
    folder = submissions(tmp_path / "subs")
    book = tmp_path / "g.sqlite"
    result = grade_command(
        folder,
        "--scheduler",
        cluster.scheduler_address,
        "--checks",
        checks,
        "--seed",
        "1",
        "--gradebook",
        book,
        "-o",
        tmp_path / "report.txt",
    )
    assert result.returncode == 2
    hashes = set(re.findall(r"\b[0-9a-f]{64}\b", result.stderr))
    assert hashes == {checks_hash(COURSE, checks), checks_hash(COURSE)}, result.stderr
    assert "refuses" in result.stderr and result.stderr.count("\n") <= 2
    assert latest(book) == [] and not (tmp_path / "report.txt").exists()


def test_grade_help_documents_the_scheduler_option():
    text = CliRunner().invoke(main, ["grade", "--help"]).stdout
    assert "--scheduler ADDRESS" in text and "Dask" in text


def test_workers_and_scheduler_together_exit_2(tmp_path):
    path = tmp_path / "rope.py"
    path.write_text(reference("rope"))
    result = CliRunner().invoke(main, ["grade", str(path), "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2 and "not both" in result.stderr


def test_an_unreachable_scheduler_exits_2_naming_it(tmp_path):
    path = tmp_path / "rope.py"
    path.write_text(reference("rope"))
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = CliRunner().invoke(
            main, ["grade", str(path), "--scheduler", "tcp://127.0.0.1:9", "--gradebook", str(tmp_path / "g.sqlite")]
        )
    assert result.exit_code == 2
    assert "tcp://127.0.0.1:9" in result.stderr and "cannot reach the Dask scheduler" in result.stderr


# ---- a submission that keeps killing its grading process -------------------------------------


@REAL_CLUSTER
@pytest.mark.xdist_alone
def test_a_submission_that_kills_every_worker_it_meets_is_graded_zero_once(tmp_path):
    """Simulated with a sandbox stand-in that kills the Dask worker (a real submission is stopped by
    the sandbox, see the crasher above). Every task is assigned at once, so the submissions queued
    behind the poison on its worker die with it; the scheduler allows one failure per task here."""
    from cluster_fakes import MARKER

    from grader.scaleout.batch import run_batch
    from grader.scaleout.executors import Dask
    from grader.scaleout.run import GradingRun

    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "a_poison_tokens.py").write_text(f"# {MARKER}\n" + reference("tokens"))  # graded first
    for i in range(9):
        (folder / f"good{i}_tokens.py").write_text(reference("tokens"))
    book = tmp_path / "g.sqlite"
    config = {
        "distributed.scheduler.allowed-failures": 1,
        "distributed.scheduler.worker-saturation": float("inf"),  # every task assigned at once
        # LocalCluster closes a nanny for good when, 15 s after one of its workers left, no worker of
        # that name is registered: under load a worker the poison keeps killing is often between
        # lives at that moment, and the cluster was left with no nanny at all (seen at -n 3)
        "distributed.deploy.lost-worker-timeout": "1h",
    }
    with local_cluster(**config) as running:
        run = GradingRun(course=COURSE, seed=3, sandbox_factory="cluster_fakes:killing_sandbox_factory")
        on_cluster = Dask(running.scheduler_address, chunk_size=10)
        results = run_batch([folder], run, on_cluster, gradebook=book, progress=False)
        runs = latest(book)
        again = run_batch([folder], run, on_cluster, gradebook=book, progress=False)  # resumed: the zero stands
        with distributed.Client(running.scheduler_address, set_as_default=False) as client:
            # the cluster still grades: each nanny restarted its dead worker
            client.wait_for_workers(2, timeout=300)
    by_student = {r.student: r for r in results}
    poison = by_student["a_poison_tokens"]
    assert poison.score == 0 and poison.tests
    shown = [t.output for t in poison.tests if not t.hidden]
    assert shown and all("died 2 time(s)" in output for output in shown)  # the scheduler's limit, plus one
    for i in range(9):  # none of them is blamed for the deaths of the workers they were queued on
        assert by_student[f"good{i}_tokens"].score == by_student[f"good{i}_tokens"].max_score > 0
    assert (
        Counter((r["student"], r["submission"]) for r in runs) == Counter((r.student, r.submission) for r in results)
        and len(runs) == 10
    )
    assert len(latest(book)) == 10 and [r.score for r in again] == [r.score for r in results]


# ---- units ------------------------------------------------------------------------------------


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
@pytest.mark.xdist_alone  # a cluster of its own, no course graded: seconds, in the fast lane
def test_a_batch_whose_every_worker_leaves_fails_naming_it_instead_of_waiting_forever(tmp_path):
    """Dask waits forever for a worker to run the tasks left: the client gives up once the cluster
    has had none for `worker_timeout` seconds, having finished what came back before."""
    from grader.reading.submission import load_submission
    from grader.scaleout.cluster import grade_on_cluster
    from grader.scaleout.run import GradingRun

    folder = tmp_path / "subs"
    folder.mkdir()
    for i in range(8):
        (folder / f"s{i}_tokens.py").write_text(reference("tokens"))
    jobs = [(i, load_submission(path, COURSE)) for i, path in enumerate(sorted(folder.iterdir()))]
    finished: list[int] = []
    with local_cluster(n_workers=1) as running:

        def finish(key, outcomes):
            finished.append(key)
            if len(finished) == 1:
                running.scale(0)  # the only worker (and its nanny) leaves for good

        with pytest.raises(ClusterError, match=r"every Dask worker left and none joined within 3 s"):
            grade_on_cluster(
                running.scheduler_address,
                jobs,
                finish,
                run=GradingRun(course=COURSE, seed=1, sandbox_factory="grader_fakes:slow_fake_sandbox_factory"),
                chunk_size=1,
                worker_timeout=3,
            )
    assert 1 <= len(finished) < len(jobs) and len(set(finished)) == len(finished)


def test_chunks_are_sized_for_throughput():
    assert chunk_size_for(200, 2) == 8  # capped: a short tail, and a killed worker loses little work
    assert chunk_size_for(40, 2) == 3  # about eight chunks per worker thread
    assert chunk_size_for(3, 8) == 1 and chunk_size_for(0, 0) == 1


@pytest.mark.parametrize(
    "reply, message",
    [
        (b"{}", "expected a JSON string"),
        ("not json", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"error": "Dask worker x refuses the batch"}', "refuses the batch"),
        ('{"results": [{"key": 99, "outcomes": []}]}', "unexpected result"),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "yes", "output": "", "mistakes": [], "problem": ""}]}]}',
            "malformed check outcome",
        ),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "passed", "output": "", "mistakes": [], "problem": "", "extra": 1}]}]}',
            "malformed check outcome",
        ),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "passed", "output": ""}]}]}',
            "malformed check outcome",
        ),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "passed", "output": "", "mistakes": "off_by_one", "problem": ""}]}]}',
            "malformed check outcome",
        ),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "passed", "output": "", "mistakes": [3], "problem": ""}]}]}',
            "malformed check outcome",
        ),
        (
            '{"results": [{"key": 1, "outcomes": [{"name": "t", "exercise": "e", "score": 1, "max_score": 1, "hidden": false,'
            ' "status": "passed", "output": "", "mistakes": [], "problem": null}]}]}',
            "malformed check outcome",
        ),
    ],
)
def test_a_malformed_reply_is_refused(reply, message):
    with pytest.raises(ClusterError, match=message):
        read_reply(reply, {1})


def test_a_well_formed_reply_becomes_check_outcomes():
    reply = json.dumps(
        {
            "results": [
                {
                    "key": 1,
                    "outcomes": [
                        {
                            "name": "t",
                            "exercise": "encode",
                            "score": 0.0,
                            "max_score": 2.0,
                            "status": "failed",
                            "hidden": True,
                            "output": "no",
                            "mistakes": ["off_by_one"],
                            "problem": "timeout",
                        }
                    ],
                }
            ]
        }
    )
    [(key, [outcome])] = read_reply(reply, {1})
    assert key == 1 and outcome.max_score == 2.0 and outcome.hidden and not outcome.passed
    assert outcome.mistakes == ["off_by_one"] and outcome.problem == "timeout"


def test_a_worker_reply_may_carry_every_field_of_a_check_result():
    """What the worker sends (asdict of a CheckResult) is what the client accepts: a field
    added to CheckResult must be validated here too, or every cluster batch would fail."""
    import dataclasses

    from grader.reporting.results import CheckResult

    outcome = CheckResult(
        name="t",
        exercise="encode",
        score=1.0,
        max_score=1.0,
        status="passed",
        output="",
        hidden=False,
        mistakes=["m"],
        problem="",
    )
    reply = json.dumps({"results": [{"key": 7, "outcomes": [dataclasses.asdict(outcome)]}]})
    assert read_reply(reply, {7}) == [(7, [outcome])]
