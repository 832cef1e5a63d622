"""What verify's odd-value probes cost (grader/verifying/odd_values.py), on the first course.

    python bench/verify_probes.py [--root .]

In one process, through the real sandbox, the proof cache off (as `coursegen verify --all`):

    without probes       every exercise proof but the values proof (odd_values=())
    with probes          every exercise proof and the values proof (every kind of the course)
    values proofs only   the values proofs alone, every other proof reused from a cache just
                         filled (their own session: pytest and the sandbox's worker start again)

The machine's load is printed with each figure: wall times grow with it. Measured on 2026-12-03
(2 cores shared by six engineers, load 14-20): 89.9 s without, 117.0 s with (+30%), values
proofs only 58.5 s; `coursegen verify --all --skip-quizzes` 151 s before the probes (load 18-20).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args()

    from grader.course import Course
    from grader.verifying.proof_cache import ProofCache
    from grader.verifying.verify import verify

    course = Course.load(args.root)
    for label, kinds in (("without probes", ()), ("with probes", None)):
        load = os.getloadavg()[0]
        started = time.perf_counter()
        rows = verify(course, cache=None, odd_values=kinds)
        failed = sum(not r.ok for r in rows)
        print(f"{label}: {time.perf_counter() - started:.1f} s, {len(rows)} rows, {failed} failed, load {load:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        cache = ProofCache(Path(folder), enabled=True, base=course.root)
        verify(course, cache=cache, odd_values=("none",))  # every proof, the values proof with one kind
        load = os.getloadavg()[0]
        started = time.perf_counter()
        rows = verify(course, cache=cache)  # only the values proofs run (their key names the kinds)
        values = [r for r in rows if r.subject == "values"]
        print(
            f"values proofs only: {time.perf_counter() - started:.1f} s, "
            f"{sum(r.ok for r in values)} of {len(values)} ok, load {load:.1f}"
        )


if __name__ == "__main__":
    main()
