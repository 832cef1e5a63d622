"""Benchmark the grader: a batch of generated submissions, against one cold pytest per submission.

    python bench/grade.py [--count 200] [--workers 2] [--baseline-sample 10]

Generates COUNT submissions (references, stubs and catalogued mistakes of every module, as
`<student>/<module>.py`), grades them with `grader.scaleout.batch.run_batch` (spawned workers, one
pytest session and one sandbox each, through the real sandbox), and prints submissions per
second, per-submission latency and peak memory. The baseline runs `python -m pytest
grader/checks/test_<module>.py -p grader.running.pytest_plugin --grader-submission FILE` in a fresh process
for a sample of the submissions and extrapolates to COUNT (said so in the output).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def generate(folder: Path, count: int, seed: int = 0) -> list[Path]:
    """COUNT submissions: half references, a quarter stubs, a quarter catalogued mistakes."""
    from grader.course import Course

    MODULES, catalogue = Course.load(ROOT).registry.modules, Course.load(ROOT).catalogue

    chooser = random.Random(seed)
    paths = []
    for i in range(count):
        module = MODULES[i % len(MODULES)]
        reference = (ROOT / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        kind = i % 4
        if kind in (0, 1):
            code = reference
        elif kind == 2:
            code = (ROOT / "exercises" / f"{module}.py").read_text(encoding="utf-8")
        else:
            mistakes = catalogue(module)
            code = (
                reference + "\n\nimport torch.nn as nn\n" + chooser.choice(mistakes).source if mistakes else reference
            )
        path = folder / f"student{i:03d}" / f"{module}.py"
        path.parent.mkdir(parents=True)
        path.write_text(code, encoding="utf-8")
        paths.append(path)
    return paths


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def cpu_seconds() -> float:
    """CPU time of this process and of every descendant waited for (workers, sandbox children)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_batch(folder: Path, workers: int) -> tuple[float, list, list[float], float]:
    from grader.scaleout.batch import run_batch
    from grader.scaleout.executors import LocalPool
    from grader.scaleout.run import GradingRun
    from grader.course import Course

    arrivals: list[float] = []
    cpu_before = cpu_seconds()
    start = time.perf_counter()
    results = run_batch(
        [folder],
        GradingRun(course=Course.load(ROOT)),
        LocalPool(workers),
        gradebook=folder.parent / "bench.sqlite",
        progress=False,
        on_result=lambda result: arrivals.append(time.perf_counter() - start),
    )
    return time.perf_counter() - start, results, arrivals, cpu_seconds() - cpu_before


def bench_latency(paths: list[Path], count: int) -> list[float]:
    """Per-submission grading time in one warm session (after the session started)."""
    from grader.course import Course
    from grader.running.grade import grade_submissions, new_seed
    from grader.reading.submission import load_submission

    course = Course.load(ROOT)
    stamps: list[float] = []
    items = [(i, load_submission(p, course)) for i, p in enumerate(paths[:count])]
    grade_submissions(items, lambda key, outcomes: stamps.append(time.perf_counter()), seed=new_seed(), course=course)
    return [b - a for a, b in zip(stamps, stamps[1:])]


def bench_baseline(paths: list[Path], sample: int) -> tuple[list[float], float]:
    """Wall seconds of each cold run, and the CPU seconds they used in all."""
    times = []
    cpu_before = cpu_seconds()
    for path in paths[:sample]:
        module = path.stem
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "grader.running.pytest_plugin",
                str(ROOT / "grader" / "checks" / f"test_{module}.py"),
                f"--grader-submission={path}",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        times.append(time.perf_counter() - start)
    return times, cpu_seconds() - cpu_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--baseline-sample", type=int, default=10)
    parser.add_argument("--latency-sample", type=int, default=30)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="coursegen-bench-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        paths = generate(folder, args.count)

        load_before = os.getloadavg()[0]
        wall, results, arrivals, cpu = bench_batch(folder, args.workers)
        rate = len(results) / wall
        own, children = peak_rss_mb()
        print(
            f"machine: {os.cpu_count()} cores, load average {load_before:.1f} before the run "
            f"(other processes compete for the cores when it is above 0)"
        )
        print(
            f"batch: {len(results)} submissions, {args.workers} workers, {wall:.1f} s wall "
            f"(including worker start-up) -> {rate:.1f} submissions/s"
        )
        if len(arrivals) > 10:
            first, tail = arrivals[0], arrivals[len(arrivals) // 5 :]
            steady = (len(tail) - 1) / (tail[-1] - tail[0]) if tail[-1] > tail[0] else float("nan")
            print(f"       first result after {first:.1f} s (start-up); steady state {steady:.1f} submissions/s")
        print(f"       mean time per submission per worker: {1000 * wall * args.workers / len(results):.0f} ms")
        print(
            f"       CPU: {cpu:.1f} s in all processes = {1000 * cpu / len(results):.0f} ms per submission "
            f"-> at most {os.cpu_count() * len(results) / cpu:.1f} submissions/s on {os.cpu_count()} idle cores"
        )
        print(f"       peak RSS: grading parent {own:.0f} MB, largest child process {children:.0f} MB")

        latencies = bench_latency(paths, args.latency_sample)
        if latencies:
            p95 = sorted(latencies)[int(0.95 * (len(latencies) - 1))]
            print(
                f"latency (one warm session, {len(latencies)} submissions): median "
                f"{1000 * statistics.median(latencies):.0f} ms, p95 {1000 * p95:.0f} ms"
            )

        baseline, baseline_cpu = bench_baseline(paths, args.baseline_sample)
        if not baseline:
            return
        per = statistics.mean(baseline)
        extrapolated = per * args.count
        print(
            f"baseline: one cold `pytest` process per submission, measured on {len(baseline)} submissions "
            f"({per:.2f} s wall, {baseline_cpu / len(baseline):.2f} s CPU each) and EXTRAPOLATED to "
            f"{args.count}: {extrapolated:.0f} s -> {1 / per:.2f} submissions/s"
        )
        print(
            f"speed-up over the baseline: {extrapolated / wall:.1f}x in wall time, "
            f"{baseline_cpu / len(baseline) / (cpu / len(results)):.1f}x in CPU per submission "
            f"(targets: >= 10 submissions/s on 2 cores, >= 10x the baseline)"
        )


if __name__ == "__main__":
    main()
