"""Where the suite's CPU goes: every test run alone, charged with the whole machine's CPU time.

    python bench/test_cpu.py [--top 40] [--save cpu.jsonl] [PYTEST ARGS ...]

The suite is CPU-bound on two cores (under `-n 2` the cores are idle about 5% of a `.ci/run`), so its
wall time follows the CPU time it needs, and a test's share of that is what a cut must aim at. A
test's own wall time under pytest-xdist does not show it (the other worker slows it down), nor does
the CPU of its process (a test's Chromium, sandboxes, Dask workers and `coursegen` subprocesses are
not all its children). So this runs pytest in one process (`-n 0`, tests one after another, the
order of the collection) and charges each test (setup, call and teardown) with what the machine's
CPU counters in /proc/stat advanced while it ran: everything its processes did, wherever they ran.
Run it on an otherwise idle machine: another process's CPU is charged to the test it ran beside.

It prints the CPU time and wall time per test folder, per test file and the `--top` tests. The whole
suite takes about half an hour this way (1842 s wall, 2399 CPU-s on two cores, 2026-12-06);
arguments after the options go to pytest (`python bench/test_cpu.py tests/browser`). It asserts
nothing: figures, not a verdict. The exit code is pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog="Example: python bench/test_cpu.py --top 20 tests/browser"
    )
    parser.add_argument("--top", type=int, default=40, help="how many of the costliest tests to list")
    parser.add_argument("--save", type=Path, help="also keep the per-test records (JSON lines) in this file")
    args, pytest_args = parser.parse_known_args()
    with tempfile.TemporaryDirectory(prefix="coursegen-cpu-") as tmp:
        records = Path(tmp) / "cpu.jsonl"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
        env["COURSEGEN_CPU_RECORDS"] = str(records)
        command = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", "-p", "cpu_per_test"]
        print("==", " ".join(["python", *command[1:], *pytest_args]), flush=True)
        code = subprocess.run([*command, *pytest_args], cwd=ROOT, env=env).returncode
        text = records.read_text(encoding="utf-8") if records.exists() else ""
        if args.save:
            args.save.write_text(text, encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    report(rows, args.top)
    return code


def report(rows: list[dict], top: int) -> None:
    if not rows:
        print("no test ran: nothing to report")
        return
    cpu, wall = sum(r["cpu"] for r in rows), sum(r["wall"] for r in rows)
    print(f"\n{len(rows)} tests: {cpu:.0f} CPU-s in {wall:.0f} s of wall time, on {os.cpu_count()} cores")
    for title, key in (("per folder", _folder), ("per file", _file)):
        cpu_of, wall_of = Counter(), Counter()
        for row in rows:
            cpu_of[key(row)] += row["cpu"]
            wall_of[key(row)] += row["wall"]
        shown = cpu_of.most_common(top if title == "per file" else None)
        print(f"\n{title} (CPU-s, wall s, share of the CPU):")
        for name, seconds in shown:
            print(f"  {seconds:7.1f}  {wall_of[name]:7.1f}  {seconds / cpu:6.1%}  {name}")
    print(f"\nthe {top} costliest tests (CPU-s, wall s):")
    for row in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        print(f"  {row['cpu']:7.1f}  {row['wall']:7.1f}  {row['id']}")


def _file(row: dict) -> str:
    return row["id"].split("::")[0]


def _folder(row: dict) -> str:
    return str(Path(_file(row)).parent)


if __name__ == "__main__":
    sys.exit(main())
