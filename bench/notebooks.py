"""Measure notebook generation for the course: cold (empty expected-value cache, torch imported
to run the references) and warm (no change, torch never imported), and the notebooks' sizes.

    python bench/notebooks.py [--root .]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """
import sys, time
started = time.perf_counter()
from coursegen.loader import load_course
from coursegen.notebooks import render_notebooks
outputs = render_notebooks(load_course({root!r}), solutions=True, cache_dir={cache!r})
elapsed = time.perf_counter() - started
sizes = sorted(len(data) for data in outputs.values())
print(f"{{len(outputs)}} notebooks in {{elapsed:.2f}} s; torch imported: {{'torch' in sys.modules}}; "
      f"sizes {{sizes[0] / 1024:.0f}}-{{sizes[-1] / 1024:.0f}} KB")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="course root (default: .)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        code = SCRIPT.format(root=str(Path(args.root).resolve()), cache=cache)
        for label in ("cold (empty cache)", "warm (no change)  "):
            result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            print(f"{label}: {result.stdout.strip()}")


if __name__ == "__main__":
    main()
