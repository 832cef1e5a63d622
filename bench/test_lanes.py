"""Time the test lanes as a user runs them: the fast lane, and with --full the whole suite.

    python bench/test_lanes.py [--full] [--slowest 10]

Runs `python -m pytest -m "not slow" -q` (the README's fast lane; with --full also
`python -m pytest -q`, the command .ci/run runs) in a fresh process from the repository root,
with the options pyproject.toml gives every run (workers included), and prints for each lane
the wall time, the number of tests by outcome and the slowest tests (setup, call and teardown
of each summed, read from a JUnit XML report written to a temporary folder). It asserts
nothing about time: timings on a shared machine are figures, not a verdict. The exit code
is pytest's, so a failing lane is seen.
"""

from __future__ import annotations

import argparse
import os
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
        started = time.monotonic()
        completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ))
        wall = time.monotonic() - started
        summary = next((line for line in reversed(completed.stdout.splitlines()) if line.strip()), "")
        tests = _read_report(report) if report.exists() else []
    outcomes = Counter(outcome for _, _, outcome in tests)
    print(f"wall time: {wall:.1f} s ({wall / 60:.1f} min) on {os.cpu_count()} cores")
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
    parser.add_argument("--full", action="store_true", help="also time the whole suite (what CI runs)")
    parser.add_argument("--slowest", type=int, default=10, help="how many of the slowest tests to list")
    args = parser.parse_args()
    codes = [run_lane("fast", LANES["fast"], args.slowest)]
    if args.full:
        codes.append(run_lane("full", LANES["full"], args.slowest))
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
