"""Benchmark grading on Dask against the local batch, on one machine, in one run.

    python bench/cluster.py [--count 200] [--workers 2]

Generates COUNT submissions as bench/grade.py does (references, stubs and catalogued mistakes),
grades them with the local batch (`--workers` spawned processes), then on a local Dask cluster of
as many worker processes (LocalCluster on 127.0.0.1, one thread each) through the same
`run_batch(..., scheduler=ADDRESS)` that `coursegen grade --scheduler` calls. Both grade into new
gradebooks with the same seed, so both include their start-up (workers importing torch, pytest
collecting the checks, the sandbox starting); the cluster's own start is timed apart, since
`--scheduler` grades on a cluster that already runs. Prints throughput, the overhead ratio
(target: cluster within 1.3x of local) and the per-chunk scheduling overhead (round trips of a
chunk-sized payload through the scheduler, one at a time and all at once).

Figures depend on the machine's load: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def timed_batch(folder: Path, book: Path, seed: int, where: Any) -> tuple[float, list, list[float]]:
    """Wall seconds, results, and the second at which each result arrived, graded on the
    executor `where` (grader/scaleout/executors.py)."""
    from grader.scaleout.batch import run_batch
    from grader.scaleout.run import GradingRun
    from grader.course import Course

    arrivals: list[float] = []
    start = time.perf_counter()
    results = run_batch(
        [folder],
        GradingRun(course=Course.load(ROOT), seed=seed),
        where,
        gradebook=book,
        progress=False,
        on_result=lambda result: arrivals.append(time.perf_counter() - start),
    )
    return time.perf_counter() - start, results, arrivals


def steady(arrivals: list[float]) -> str:
    """First result (start-up) and the rate after the first fifth of the results."""
    if len(arrivals) < 10:
        return ""
    tail = arrivals[len(arrivals) // 5 :]
    rate = (len(tail) - 1) / (tail[-1] - tail[0]) if tail[-1] > tail[0] else float("nan")
    return f"first result after {arrivals[0]:.1f} s, then {rate:.1f} submissions/s, last after {arrivals[-1]:.1f} s"


def verdicts(results: list) -> list:
    return [(r.student, r.submission, r.score, [(t.name, t.status) for t in r.tests]) for r in results]


def chunk_round_trips(address: str, chunk: list[dict], count: int) -> tuple[float, float]:
    """Mean seconds per task carrying `chunk` through the scheduler: one after another, and all at once."""
    from distributed import Client

    with Client(address, set_as_default=False) as client:
        client.submit(len, chunk, pure=False).result()  # connections warm
        serial = []
        for _ in range(count):
            start = time.perf_counter()
            client.submit(len, chunk, pure=False).result()
            serial.append(time.perf_counter() - start)
        start = time.perf_counter()
        client.gather([client.submit(len, chunk, pure=False) for _ in range(count)])
        together = (time.perf_counter() - start) / count
    return statistics.median(serial), together


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()

    from distributed import LocalCluster

    from grade import generate
    from grader.scaleout.cluster import chunk_size_for, job_data
    from grader.course import Course
    from grader.reading.submission import load_submission
    from grader.scaleout.executors import Dask, LocalPool

    course = Course.load(ROOT)

    with tempfile.TemporaryDirectory(prefix="coursegen-bench-cluster-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        paths = generate(folder, args.count)
        size = chunk_size_for(args.count, args.workers)
        print(
            f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start "
            f"(other processes compete for the cores when it is above 0)"
        )

        load = os.getloadavg()[0]
        local_wall, local_results, arrivals = timed_batch(
            folder, Path(tmp) / "local.sqlite", args.seed, LocalPool(args.workers)
        )
        print(
            f"local:   {len(local_results)} submissions, {args.workers} worker processes, {local_wall:.1f} s wall "
            f"(with start-up) -> {len(local_results) / local_wall:.1f} submissions/s  [load {load:.1f}]"
        )
        print(f"         {steady(arrivals)}")

        start = time.perf_counter()
        with LocalCluster(
            processes=True, n_workers=args.workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
        ) as cluster:
            cluster_start = time.perf_counter() - start
            load = os.getloadavg()[0]
            wall, results, arrivals = timed_batch(
                folder, Path(tmp) / "cluster.sqlite", args.seed, Dask(cluster.scheduler_address)
            )
            chunks = -(-args.count // size)
            print(
                f"cluster: {len(results)} submissions, {args.workers} Dask worker processes, {wall:.1f} s wall "
                f"(with start-up of the grading sessions; the cluster itself started in {cluster_start:.1f} s) "
                f"-> {len(results) / wall:.1f} submissions/s  [load {load:.1f}]"
            )
            print(f"         {steady(arrivals)}; {chunks} chunks of {size} submissions")
            same = verdicts(results) == verdicts(local_results)
            texts = sum(a.to_dict() == b.to_dict() for a, b in zip(results, local_results))
            print(
                f"overhead ratio cluster/local: {wall / local_wall:.2f}x (target <= 1.3x); same scores and check "
                f"statuses as local: {'yes' if same else 'NO'}; identical feedback text for {texts} of "
                f"{len(results)} (the rest print values of the student's own unseeded random weights)"
            )

            chunk = [job_data(i, load_submission(p, course)) for i, p in enumerate(paths[:size])]
            serial, together = chunk_round_trips(cluster.scheduler_address, chunk, 50)
            print(
                f"per-chunk scheduling overhead (a {size}-submission payload, no grading): "
                f"{1000 * serial:.1f} ms one at a time, {1000 * together:.1f} ms each when all are queued "
                f"-> {1000 * serial / size:.2f} ms per submission; for the whole batch "
                f"{chunks * serial:.2f} s of {wall:.1f} s"
            )


if __name__ == "__main__":
    main()
