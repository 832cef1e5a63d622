"""`coursegen grade --scheduler` in the fast lane: a small torch-free course (tests/courses/statistics)
graded on a Dask cluster whose scheduler and worker run in this process, through the real command,
gives the local batch's results and resumes from its gradebook. The same path on clusters of real
processes (workers killed mid-batch, started from the documented commands, the first course) is
tests/grader/test_grader_cluster.py, in the slow lane: minutes of grading on two cores."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import distributed
import pytest

from grader.reporting.gradebook import Gradebook
from tests.cli import run_cli
from tests.nonempty import nonempty

STATISTICS = Path(__file__).resolve().parents[1] / "courses" / "statistics"
MODULES = ("center", "spread")


def submissions(course: Path, folder: Path) -> Path:
    """Each module's reference and stub, a file that is not Python and a submission that kills its
    own grading process."""
    for module in MODULES:
        for name, source in (("ref", "solutions"), ("stub", "exercises")):
            (folder / f"{name}_{module}").mkdir(parents=True)
            shutil.copy(course / source / f"{module}.py", folder / f"{name}_{module}" / f"{module}.py")
    (folder / "broken_center.py").write_text("def mean(values:\n")
    (folder / "crasher_center.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    return folder


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and one worker (two threads) in this process, on 127.0.0.1."""
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None, host="127.0.0.1", protocol="tcp"
    ) as running:
        yield running


def copied(dest: Path) -> Path:
    shutil.copytree(STATISTICS, dest, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    return dest


def test_grading_on_an_in_process_cluster_gives_the_local_batch_results(cluster, tmp_path):
    course = copied(tmp_path / "course")
    folder = submissions(course, tmp_path / "subs")
    on_cluster, local = tmp_path / "cluster.sqlite", tmp_path / "local.sqlite"
    common = ("--root", course, "--seed", "20261201", "--format", "json")
    address = cluster.scheduler_address
    run_cli(
        "grade",
        folder,
        *common,
        "--scheduler",
        address,
        "--gradebook",
        on_cluster,
        "-o",
        tmp_path / "c.json",
        expect=0,
    )
    (worker,) = cluster.workers.values()
    ran = {entry[0] for entry in worker.state.log if str(entry[0]).startswith("coursegen-grade-")}
    assert ran, "the cluster's worker graded the batch"
    with Gradebook(on_cluster, create=False) as opened:
        graded = len(opened.runs())
    run_cli("grade", folder, "--root", course, "--scheduler", address, "--gradebook", on_cluster, expect=0)
    with Gradebook(on_cluster, create=False) as opened:
        assert len(opened.runs()) == graded  # resumed: nothing left to grade, nothing re-graded
    run_cli("grade", folder, *common, "--workers", "1", "--gradebook", local, "-o", tmp_path / "l.json", expect=0)

    def by_student(report: Path) -> dict[str, dict]:
        return {r["student"]: r for r in nonempty(json.loads(report.read_text()))}

    remote, here = by_student(tmp_path / "c.json"), by_student(tmp_path / "l.json")
    assert remote == here
    for module in MODULES:
        assert remote[f"ref_{module}"]["score"] == remote[f"ref_{module}"]["max_score"] > 0
        assert remote[f"stub_{module}"]["score"] == 0
    assert remote["broken_center"]["score"] == 0 and remote["crasher_center"]["score"] == 0
    assert graded == len(remote)


def test_the_cluster_refuses_a_client_whose_checks_differ_naming_both_hashes(cluster, tmp_path):
    from grader.course import Course
    from grader.scaleout.batch import checks_hash

    course = copied(tmp_path / "course")
    checks = tmp_path / "checks"
    shutil.copytree(course / "grader" / "checks", checks, ignore=shutil.ignore_patterns("__pycache__"))
    first = sorted(checks.glob("test_*.py"))[0]
    first.write_text(first.read_text() + "\n# changed on the client only\n")
    folder = submissions(course, tmp_path / "subs")
    book = tmp_path / "g.sqlite"
    args = ("--root", course, "--scheduler", cluster.scheduler_address, "--checks", checks, "--seed", "1")
    result = run_cli("grade", folder, *args, "--gradebook", book, "-o", tmp_path / "report.txt", expect=2)
    hashes = set(re.findall(r"\b[0-9a-f]{64}\b", result.stderr))
    loaded = Course.load(course)
    assert hashes == {checks_hash(loaded, checks), checks_hash(loaded)}, result.stderr
    assert "refuses" in result.stderr and result.stderr.count("\n") <= 2
    with Gradebook(book, create=False) as opened:
        assert opened.runs() == []
    assert not (tmp_path / "report.txt").exists()
