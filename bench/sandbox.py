"""Sandbox speed: worker start, fork-to-ready (load of a small module), per-call round trip,
close, and end-to-end load+call+close per submission. Prints figures; asserts nothing.

    python bench/sandbox.py [--loads 50] [--calls 500]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import torch

from grader.course import Course
from grader.sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[1]


def ms(samples: list[float]) -> str:
    samples = sorted(samples)
    return (
        f"median {statistics.median(samples) * 1000:7.2f} ms   p90 {samples[int(len(samples) * 0.9)] * 1000:7.2f} ms"
        f"   min {samples[0] * 1000:7.2f} ms"
    )


def worker_cpu_seconds(sandbox: Sandbox) -> float:
    """CPU time of the warm worker plus all its reaped children (keepers, runners), from /proc."""
    fields = Path(f"/proc/{sandbox._worker.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--calls", type=int, default=500)
    options = parser.parse_args()
    code = (ROOT / "solutions" / "rope.py").read_text()
    x = torch.randn(1, 2, 8, 16)

    start = time.perf_counter()
    sandbox = Sandbox(course=Course.load(ROOT))
    isolation = sandbox.isolation  # starts the worker and runs one empty child
    print(f"worker start + first child:  {(time.perf_counter() - start) * 1000:7.1f} ms")
    print(f"isolation: {', '.join(isolation)}")

    loads, closes, whole = [], [], []
    worker_cpu_before, grader_cpu_before = worker_cpu_seconds(sandbox), time.process_time()
    for _ in range(options.loads):
        t0 = time.perf_counter()
        candidate = sandbox.load(code, "rope.py")
        t1 = time.perf_counter()
        candidate.apply_rope(x)
        t2 = time.perf_counter()
        candidate.close()
        t3 = time.perf_counter()
        loads.append(t1 - t0)
        closes.append(t3 - t2)
        whole.append(t3 - t0)
    sandbox.child_status(-1, 0.5)  # let the worker reap the last children, so their CPU time is counted
    worker_cpu = (worker_cpu_seconds(sandbox) - worker_cpu_before) / options.loads
    grader_cpu = (time.process_time() - grader_cpu_before) / options.loads
    print(
        f"CPU per load+call+close:     worker and children {worker_cpu * 1000:6.2f} ms, grader {grader_cpu * 1000:6.2f} ms"
        f"   -> {1 / (worker_cpu + grader_cpu):.0f} submissions/s per core of sandbox overhead"
    )
    print(f"fork-to-ready + exec (load): {ms(loads)}")
    print(f"close:                       {ms(closes)}")
    print(f"load + 1 call + close:       {ms(whole)}   -> {1 / statistics.median(whole):.0f} submissions/s per core")

    with sandbox.load(code, "rope.py") as candidate:
        for name, args in (
            ("tiny", (torch.zeros(1, 1, 1, 2),)),
            ("apply_rope 1x2x8x16", (x,)),
            ("apply_rope 4x8x128x64 (1 MB)", (torch.randn(4, 8, 128, 64),)),
        ):
            calls = []
            for _ in range(options.calls if name != "apply_rope 4x8x128x64 (1 MB)" else 50):
                t0 = time.perf_counter()
                candidate.apply_rope(*args)
                calls.append(time.perf_counter() - t0)
            print(f"call round trip, {name:28s} {ms(calls)}")
        count = candidate.call("apply_rope", torch.zeros(1, 1, 1, 2))
        assert count is not None
    sandbox.close()


if __name__ == "__main__":
    main()
