"""Benchmark the grading service as students meet it: submit-to-result latency and throughput.

    python bench/service.py [--rate 5] [--seconds 60] [--workers 1 | --scheduler tcp://HOST:PORT] [--burst 40]
                            [--poll 0.05]

Starts `coursegen service start` as a real process (a fresh gradebook in a temporary folder,
tokens for 50 students), waits until it is ready (its grading processes warm; with --scheduler: the
service grades on that running Dask cluster, whose workers need this checkout at the same path), then:

    sustained   an open loop: one single-file submission of the first course every 1/RATE s for
                SECONDS s (correct, slow-loop and incomplete positions.py files in turn, assignment
                position-sinusoidal), each from its own client thread that asks for its result with
                ?wait=30 (the server answers when it is graded; --poll S: plain reads every S s);
                latency = from sending the POST to reading status done
    burst       BURST submissions at once: the peak throughput (graded per second until the last)

and prints latency percentiles (p50, p90, p99, max), the achieved rates, the service's own
histogram (GET /metrics), and the machine's load average and CPU count before and after. Bounded:
at most RATE*SECONDS + BURST submissions, and every wait has a deadline. The targets (issue 38):
sustained 5/s for a minute with p50 <= 300 ms and p99 <= 1.5 s on this two-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.service.running import issue_tokens, start_service  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "submissions"
FILES = [
    ("positions.py", (FIXTURES / "correct" / "positions.py").read_bytes()),
    ("positions.py", (FIXTURES / "loops" / "positions.py").read_bytes()),
    ("positions.py", (FIXTURES / "missing_function" / "positions.py").read_bytes()),
]
ASSIGNMENT = "position-sinusoidal"
STUDENTS = [f"bench{n:02d}" for n in range(50)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def one(client, url: str, token: str, n: int, poll: float, deadline: float, wait: bool = True) -> tuple[float, str]:
    name, data = FILES[n % len(FILES)]
    params = {"wait": 30} if wait else {}
    headers = {"Authorization": f"Bearer {token}"}
    started = time.perf_counter()
    answer = client.post(
        f"{url}/api/v1/submissions", headers=headers, data={"assignment": ASSIGNMENT}, files=[("file", (name, data))]
    )
    if answer.status_code != 202:
        return time.perf_counter() - started, f"refused {answer.status_code}"
    where = f"{url}{answer.json()['url']}"
    while time.perf_counter() < deadline:
        status = client.get(where, headers=headers, params=params).json()["status"]
        if status in ("done", "failed"):
            return time.perf_counter() - started, status
        if not wait:
            time.sleep(poll)
    return time.perf_counter() - started, "timeout"


def report(label: str, results: list[tuple[float, str]], elapsed: float) -> None:
    latencies = [seconds for seconds, status in results if status == "done"]
    other = [status for _, status in results if status != "done"]
    print(f"{label}: {len(results)} submitted, {len(latencies)} done, {len(other)} not ({sorted(set(other))})")
    if latencies:
        print(
            f"  latency p50 {percentile(latencies, 50) * 1000:.0f} ms, p90 {percentile(latencies, 90) * 1000:.0f} ms, "
            f"p99 {percentile(latencies, 99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms, "
            f"mean {statistics.mean(latencies) * 1000:.0f} ms"
        )
    print(f"  {len(latencies) / elapsed:.2f} graded/s over {elapsed:.1f} s")


def load() -> str:
    one_minute, five, fifteen = os.getloadavg()
    return f"load average {one_minute:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=5.0, help="submissions per second (default 5)")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the sustained run (default 60)")
    parser.add_argument("--workers", type=int, default=1, help="the service's grading processes (default 1)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="grade on this running Dask cluster instead")
    parser.add_argument("--burst", type=int, default=40, help="submissions sent at once for the peak (0: none)")
    parser.add_argument(
        "--poll",
        type=float,
        default=0.0,
        help="seconds between a client's status reads (default 0: each read waits on the server, ?wait=30)",
    )
    args = parser.parse_args()
    import httpx

    with tempfile.TemporaryDirectory(prefix="bench-service-") as folder:
        gradebook = Path(folder) / "gradebook.sqlite"
        tokens = issue_tokens(gradebook, STUDENTS, Path(folder))
        print(f"before: {load()}")
        began = time.perf_counter()
        where = ("--scheduler", args.scheduler) if args.scheduler else ("--workers", str(args.workers))
        service = start_service(gradebook, *where, "--quota-per-hour", "100000")
        print(f"service ready (warm) in {time.perf_counter() - began:.1f} s; {service.url}")
        try:
            limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
            with httpx.Client(timeout=60, limits=limits) as client:
                count = int(args.rate * args.seconds)
                results: list[tuple[float, str]] = []
                lock = threading.Lock()
                deadline = time.perf_counter() + args.seconds + 120

                def run(n: int) -> None:
                    outcome = one(
                        client, service.url, tokens[STUDENTS[n % len(STUDENTS)]], n, args.poll, deadline, not args.poll
                    )
                    with lock:
                        results.append(outcome)

                started = time.perf_counter()
                with ThreadPoolExecutor(max_workers=64) as pool:
                    for n in range(count):
                        time.sleep(max(0.0, started + n / args.rate - time.perf_counter()))
                        pool.submit(run, n)
                report(f"sustained {args.rate:g}/s for {args.seconds:g} s", results, time.perf_counter() - started)
                print(f"during: {load()}")
                if args.burst:
                    burst: list[tuple[float, str]] = []
                    started = time.perf_counter()
                    deadline = started + 300
                    with ThreadPoolExecutor(max_workers=args.burst) as pool:
                        for outcome in pool.map(
                            lambda n: one(
                                client,
                                service.url,
                                tokens[STUDENTS[n % len(STUDENTS)]],
                                n,
                                args.poll,
                                deadline,
                                not args.poll,
                            ),
                            range(args.burst),
                        ):
                            burst.append(outcome)
                    report(f"burst of {args.burst}", burst, time.perf_counter() - started)
                metrics = client.get(
                    f"{service.url}/metrics", headers={"Authorization": f"Bearer {tokens['instructor']}"}
                )
                print("service histogram (receipt to result, seconds):")
                for line in metrics.text.splitlines():
                    if line.startswith(("coursegen_service_grading_seconds_bucket", "coursegen_service_results_total")):
                        print(f"  {line}")
        finally:
            service.stop()
        print(f"after: {load()}")


if __name__ == "__main__":
    main()
