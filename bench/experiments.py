"""The cold cost of a course's experiments (what a build without .coursegen-cache/experiments adds).

    python bench/experiments.py [--root .] [--workers N]

Runs every lesson experiment once, uncached, and prints per experiment the wall-clock seconds and
the CPU seconds of its child processes (the build adds the wall-clock part; with 2 workers on 2
free cores it is about half the CPU part). Nothing is written to the course's cache.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="the course folder")
    parser.add_argument("--workers", type=int, default=None, help="override the experiment's workers parameter")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    from coursegen.claims import experiments
    from coursegen.loader import load_course

    loaded = load_course(root)
    for lesson in loaded.lessons:
        for run in lesson.experiments:
            params = dict(run.params)
            if args.workers is not None:
                params["workers"] = args.workers
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            experiments(root)[run.run].func(**params)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            print(f"{lesson.id}/{run.id} ({run.run}): {wall:.1f} s wall, {cpu:.1f} s CPU in child processes")


if __name__ == "__main__":
    main()
