"""Benchmark what the capstone figure adds to a cold build: training the reference TinyLM for
every position method, in the child process the figure starts.

    python bench/capstone_training.py [--steps 300] [--repeat 3]

Prints the wall time and the child's CPU time (user + system) of each run, and whether the
losses were identical across runs (the build must be deterministic). Target: at most ~10 s on
a 2-core machine. On a shared, loaded machine the wall time is noisy: read the CPU time too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one_run(steps: int) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "solutions.capstone_training", json.dumps({"steps": steps})],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1"),
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)["losses"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = [one_run(args.steps) for _ in range(args.repeat)]
    for index, (wall, cpu, losses) in enumerate(results, start=1):
        finals = ", ".join(f"{m} {sum(v[-10:]) / 10:.3f}" for m, v in losses.items())
        print(f"run {index}: wall {wall:.1f} s, cpu {cpu:.1f} s   final losses: {finals}")
    identical = all(r[2] == results[0][2] for r in results)
    print(f"losses identical across runs: {identical}")
    print(
        f"best wall {min(r[0] for r in results):.1f} s, best cpu {min(r[1] for r in results):.1f} s "
        f"(target <= ~10 s on an idle 2-core machine)"
    )


if __name__ == "__main__":
    main()
