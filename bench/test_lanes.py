"""Time the test lanes as a user runs them: the fast lane, then the whole suite (what CI runs).

    python bench/test_lanes.py [--fast-only] [--slowest 10]

Runs `python -m pytest -m "not slow" -q` (the README's fast lane; its target is 180 s on two
cores) and then `python -m pytest -q` (the whole suite, slow lane included, the command .ci/run
runs through tests/run) in a fresh process from the repository root, with the options
pyproject.toml gives every run (workers included), and prints for each lane the wall time, the
CPU time of pytest and everything it started, the machine's load average before and after (on a
shared machine the wall time grows with the load; the CPU time much less), the number of tests
by outcome and the slowest tests (setup, call and teardown of each summed, read from a JUnit XML
report written to a temporary folder). It asserts nothing about time: timings on a shared
machine are figures, not a verdict. The exit code is pytest's, so a failing lane is seen.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANES = {
    "fast": ["-m", "not slow"],
    "full": [],
}


def run_lane(name: str, marker_args: list[str], slowest: int) -> int:
    with tempfile.TemporaryDirectory(prefix="coursegen-lanes-") as tmp:
        report = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", *marker_args, "-q", "-p", "no:cacheprovider"]
        command += [f"--junitxml={report}"]
        shown = " ".join(f'"{a}"' if " " in a else a for a in ["python", *command[1:-1]])
        print(f"== {name} lane: {shown}", flush=True)
        load_before = os.getloadavg()
        cpu_before = _children_cpu()
        started = time.monotonic()
        completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ))
        wall = time.monotonic() - started
        cpu = _children_cpu() - cpu_before
        load_after = os.getloadavg()
        summary = next((line for line in reversed(completed.stdout.splitlines()) if line.strip()), "")
        tests = _read_report(report) if report.exists() else []
    outcomes = Counter(outcome for _, _, outcome in tests)
    print(f"wall time: {wall:.1f} s ({wall / 60:.1f} min) on {os.cpu_count()} cores")
    print(f"CPU time (pytest and every process it started): {cpu:.1f} s")
    print(f"load average (1, 5, 15 min) before: {_load(load_before)}; after: {_load(load_after)}")
    print(f"tests: {len(tests)} ({', '.join(f'{n} {o}' for o, n in sorted(outcomes.items()))})")
    print(f"pytest says: {summary.strip('= ')}")
    print(f"test time summed over all workers: {sum(t for _, t, _ in tests):.1f} s")
    print(f"{slowest} slowest tests (setup + call + teardown):")
    for test, seconds, outcome in sorted(tests, key=lambda t: -t[1])[:slowest]:
        print(f"  {seconds:7.2f} s  {test}" + ("" if outcome == "passed" else f"  [{outcome}]"))
    if completed.returncode != 0:
        print(f"pytest exited {completed.returncode}; its last lines:")
        print("\n".join(completed.stdout.splitlines()[-15:]) or completed.stderr[-2000:])
    print(flush=True)
    return completed.returncode


def _children_cpu() -> float:
    """User and system time of the finished child processes of this one (and of theirs)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load(averages: tuple[float, float, float]) -> str:
    return " ".join(f"{a:.2f}" for a in averages)


def _read_report(path: Path) -> list[tuple[str, float, str]]:
    """(test id, seconds, outcome) of every test case in a JUnit XML report."""
    tests = []
    for case in ET.parse(path).iter("testcase"):
        module = case.get("classname", "")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
        tests.append((f"{module}::{case.get('name')}", float(case.get("time") or 0), outcome))
    return tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast-only", action="store_true", help="time the fast lane only, not the whole suite")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest tests to list")
    args = parser.parse_args()
    codes = [run_lane("fast", LANES["fast"], args.slowest)]
    if not args.fast_only:
        codes.append(run_lane("full", LANES["full"], args.slowest))
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
