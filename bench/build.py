"""Benchmark the course build: cold build, no-change rebuild, size of the site.

    python bench/build.py [--root .] [--keep]

The cold build starts from an empty cache (examples run, figures drawn); the
rebuild follows it with nothing changed (everything from the cache). Both build
into a temporary folder, so the repository's _site/ and cache are left alone.
Targets on a 2-core machine: cold < 20 s, no-change rebuild < 1 s. Each build
runs in a fresh interpreter so that import time is counted, as a user sees it.
"""
from __future__ import annotations

import argparse
import json
import os
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
    completed = subprocess.run([sys.executable, "-c", BUILD_ONCE, str(root), str(out), str(cache)],
                               capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"build failed:\n{completed.stderr}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    result["seconds"] = wall
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
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
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"cold build:          {cold['seconds']:6.2f} s  ({cold['examples_executed']} examples run, "
          f"{cold['figures_drawn']} figures drawn)")
    print(f"no-change rebuild:   {warm['seconds']:6.2f} s  ({warm['examples_executed']} examples run, "
          f"{warm['figures_drawn']} figures drawn, torch imported: {warm['torch_imported']})")
    print(f"site size:           {warm['bytes'] / 1024:8.0f} KB in {warm['files']} files")
    print(f"largest page without figures: {figures_free / 1024:.0f} KB")


if __name__ == "__main__":
    main()
