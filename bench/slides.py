"""Measure the slide decks: writing every deck in a no-change build (the decks' units alone, after a
build filled the caches), one deck, the decks' sizes, the layout check in Chromium (every deck of
both languages laid out and fitted: coursegen/slides/fit.py), and printing PDF handouts.

    python bench/slides.py [--root .] [--pdf]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPT = """
import os, shutil, sys, time
from pathlib import Path
from coursegen import build
import contextlib
from coursegen.cache import Cache
from coursegen.outputs import BuildInputs, decks
from coursegen.slides.deck import render_deck
from coursegen.slides.quiz import in_class_variants

def write_decks(loaded, staging, env):  # every unit of the decks' output, written (none reused)
    staging.mkdir(parents=True, exist_ok=True)
    inputs = BuildInputs.make(loaded, env, Cache(staging.parent / "bench-cache"), staging, reuse=False)
    with contextlib.closing(decks.units(inputs)) as units:
        for unit in units:
            unit.write(staging)

root, out = Path({root!r}), Path({out!r})
build.build_site(root, out, progress=False)            # fills the caches (examples, figures, memo)
loaded = build.load_course(root)
env = build.make_env(root, cache_dir=root / ".coursegen-cache")
runner = build.ExampleRunner(root / ".coursegen-cache")
env.globals["example_outputs"] = runner.course_outputs(loaded)
runs = build.claims.run_and_check(loaded, root / ".coursegen-cache")  # cached by the build above
env.globals["figure_svgs"] = build.draw_figures(loaded, root / ".coursegen-cache", runs=runs)[0]
env.globals["deck_figure_svgs"] = build.draw_figures(loaded, root / ".coursegen-cache", runs=runs, deck=True)[0]
env.globals["claim_evidence"] = runs.evidence
staging = out.parent / "decks"
os.environ["COURSEGEN_SKIP_LAYOUT"] = "1"
started = time.perf_counter()
write_decks(loaded, staging, env)
every = time.perf_counter() - started
del os.environ["COURSEGEN_SKIP_LAYOUT"]
laid_out = out.parent / "laid-out"
shutil.copytree(out / "assets", laid_out / "assets")  # the decks are measured with their stylesheets
from coursegen.slides import layout
measured = []
original = layout.LayoutChecker.measure
layout.LayoutChecker.measure = lambda self, deck: measured.append(deck) or original(self, deck)
started = time.perf_counter()
write_decks(loaded, laid_out, env)
checked = time.perf_counter() - started
lesson = loaded.lessons[0]
variant = in_class_variants(loaded, [lesson]).get(lesson.id)
started = time.perf_counter()
render_deck(loaded, lesson, loaded.course.languages[0], staging, env, variant)
one = time.perf_counter() - started
sizes = sorted(p.stat().st_size for p in staging.rglob("*.html"))
print(f"{{len(sizes)}} decks written in {{every:.2f}} s (one deck: {{one * 1000:.0f}} ms); "
      f"sizes {{sizes[0] / 1024:.0f}}-{{sizes[-1] / 1024:.0f}} KB; torch imported: {{'torch' in sys.modules}}")
print(f"layout check (Chromium): {{len(sizes)}} decks laid out and fitted in {{checked:.1f}} s, "
      f"{{len(measured)}} page loads ({{len(measured) / len(sizes):.1f}} per deck)")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=".", help="course root (default: .)")
    parser.add_argument("--pdf", action="store_true", help="also time `coursegen slides --pdf` (every deck)")
    args = parser.parse_args()
    root = str(Path(args.root).resolve())
    with tempfile.TemporaryDirectory() as folder:
        script = SCRIPT.format(root=root, out=str(Path(folder) / "_site"))
        subprocess.run([sys.executable, "-c", script], check=True)
        if args.pdf:
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "coursegen", "slides", "--root", root, "--pdf", "-o", str(Path(folder) / "pdf")],
                check=True,
                capture_output=True,
            )
            pdfs = sorted((Path(folder) / "pdf").rglob("*.pdf"))
            size = sum(p.stat().st_size for p in pdfs)
            print(f"{len(pdfs)} PDF handouts in {time.perf_counter() - started:.1f} s ({size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
