"""Benchmark the course build and verification: cold and warm, as a user runs them.

    python bench/build.py [--root .] [--no-verify]

The cold build starts from an empty cache (examples run, figures drawn); the
rebuild follows it with nothing changed (everything from the cache). Both build
into a temporary folder, so the repository's _site/ and cache are left alone.
Targets on a 2-core machine: cold < 20 s, no-change rebuild < 1 s. Each build
runs in a fresh interpreter so that import time is counted, as a user sees it.

Then the real commands, whole process (start to exit, what a user waits for):
`coursegen build` cold and with no change on a copy of the course (its own fresh cache),
and `coursegen verify` twice (it keeps no cache: the first run may also compile bytecode
and warm the file cache, the second shows the steady cost). Each line shows the wall time and
the CPU time of all processes (the wall time grows with the machine's load; CPU much less).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUILD_ONCE = """
import json, sys, time
started = time.perf_counter()
from coursegen.build import build_site
report = build_site(sys.argv[1], sys.argv[2], progress=False, cache_dir=sys.argv[3])
print(json.dumps({"seconds_in_process": time.perf_counter() - started, "examples_executed": report.examples_executed,
                  "figures_drawn": report.figures_drawn, "files": report.files, "bytes": report.bytes,
                  "torch_imported": "torch" in sys.modules}))
"""


def build_once(root: Path, out: Path, cache: Path) -> dict:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", BUILD_ONCE, str(root), str(out), str(cache)], capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"build failed:\n{completed.stderr}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    result["seconds"] = wall
    return result


def run_command(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (this command and every process it waited for) of one command."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{completed.stderr[-2000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, usage.ru_utime + usage.ru_stime - cpu


def coursegen_command() -> list[str]:
    script = Path(sys.executable).parent / "coursegen"
    return (
        [str(script)] if script.exists() else [sys.executable, str(Path(__file__).resolve().parent.parent / "cli.py")]
    )


def commands(root: Path, folder: Path, verify: bool) -> list[tuple[str, float, float]]:
    """The real `coursegen build` (cold, no change) on a copy of the course, and `coursegen verify` twice."""
    course = folder / "course"
    shutil.copytree(
        root,
        course,
        ignore=shutil.ignore_patterns(".git", "_site", ".coursegen-cache", "__pycache__", "*.egg-info", "node_modules"),
    )
    coursegen = coursegen_command()
    build = [*coursegen, "build", "--root", str(course), "-o", str(folder / "cli_site"), "--quiet"]
    rows = [
        ("coursegen build (cold)", *run_command(build, folder)),
        ("coursegen build (no change)", *run_command(build, folder)),
    ]
    if verify:
        for label in ("coursegen verify (first run)", "coursegen verify (again)"):
            rows.append((label, *run_command([*coursegen, "verify", "--root", str(root)], root)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--no-verify", action="store_true", help="skip the two `coursegen verify` runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coursegen-bench-") as folder:
        folder = Path(folder)
        cold = build_once(args.root, folder / "_site", folder / "cache")
        warm = build_once(args.root, folder / "_site", folder / "cache")
        site = folder / "_site"
        figures_free = 0
        for page in site.rglob("*.html"):
            import re

            figures_free = max(figures_free, len(re.sub(rb"<svg\b.*?</svg>", b"", page.read_bytes(), flags=re.S)))
        load_before = os.getloadavg()[0]
        real = commands(args.root.resolve(), folder, verify=not args.no_verify)
    print(f"machine: {os.cpu_count()} cores, load average {load_before:.1f} (above 0: other processes compete)")
    print(
        f"cold build:          {cold['seconds']:6.2f} s  ({cold['examples_executed']} examples run, "
        f"{cold['figures_drawn']} figures drawn)"
    )
    print(
        f"no-change rebuild:   {warm['seconds']:6.2f} s  ({warm['examples_executed']} examples run, "
        f"{warm['figures_drawn']} figures drawn, torch imported: {warm['torch_imported']})"
    )
    print(f"site size:           {warm['bytes'] / 1024:8.0f} KB in {warm['files']} files")
    print(f"largest page without figures: {figures_free / 1024:.0f} KB")
    print("the real commands, whole process:")
    for label, wall, cpu in real:
        print(f"  {label:<32} {wall:6.2f} s wall  {cpu:6.2f} s CPU")


if __name__ == "__main__":
    main()
