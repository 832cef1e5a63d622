"""Benchmark the instructor's loop: build and verify, cold and warm, and the one-edit cases.

    python bench/build.py [--root .] [--no-verify] [--with-all]

Every figure is a real command, whole process (start to exit, what a user waits for), run on a
copy of the course in a temporary folder with its own, initially empty, caches (the course's
_site/ and .coursegen-cache/ are left alone):

    coursegen build            cold (empty cache), no change, then after a one-word prose edit
                               (one word added to the first text block of the first lesson:
                               the word must show on that lesson's page)
    coursegen verify           cold (empty proof cache), no change, then after a one-hint edit
                               (one word added to the first hint of the first module's catalogue
                               of mistakes); every run must prove everything (exit 0)
    coursegen verify --all     (with --with-all) what CI runs: the cache ignored

Each line shows the wall time, the CPU time of all the processes and their ratios to the cold run
of the same command; the wall ratio is held against the target (issue 29: no-change verify <= 0.15x, one-hint edit <=
0.35x, one-word prose build <= 0.1x). The machine's load is printed: wall times grow with it.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"verify (no change)": 0.15, "verify (one hint edited)": 0.35, "build (one prose word)": 0.10}
PROSE_WORD = "Indeed,"
HINT_WORD = "Note:"


def coursegen_command() -> list[str]:
    script = Path(sys.executable).parent / "coursegen"
    here = Path(__file__).resolve().parent.parent
    if os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] == str(here) or not script.exists():
        return [sys.executable, str(here / "cli.py")]  # this checkout's engine
    return [str(script)]


def run(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (this command and every process it waited for) and stdout; exits on failure."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, usage.ru_utime + usage.ru_stime - cpu, completed.stdout


def edit_prose(course: Path) -> tuple[str, Path]:
    """Add one word to the first text block of the first lesson; (lesson id, its YAML file)."""
    from ruamel.yaml import YAML

    lessons = YAML(typ="safe").load((course / "content" / "course.yaml").read_text(encoding="utf-8"))["lessons"]
    lesson = lessons[0] if isinstance(lessons[0], str) else next(iter(lessons[0]))
    path = course / "content" / "lessons" / f"{lesson}.yaml"
    text = path.read_text(encoding="utf-8")
    # the English text of the first text block: a literal block (`en: |`), a quoted or a plain scalar
    match = re.search(r"kind: text\n\s+en: (\|\n\s+|\"|(?=[^\s|>'\"]))", text)
    if not match:
        sys.exit(f'{path}: no text block with an English text (`en: |`, `en: "..."` or plain) to edit')
    path.write_text(text[: match.end()] + f"{PROSE_WORD} " + text[match.end() :], encoding="utf-8")
    return lesson, path


def edit_hint(course: Path) -> Path:
    """Add one word to the first hint of the first catalogue of mistakes (in registry order)."""
    registry = (course / "exercises" / "registry.py").read_text(encoding="utf-8")
    modules = list(dict.fromkeys(re.findall(r'Exercise\("\w+",\s*"(\w+)"', registry)))
    for module in modules:
        path = course / "solutions" / "mistakes" / f"{module}.py"
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            match = re.search(r'hint=\{\s*"en":\s*"', text)
            if match:
                path.write_text(text[: match.end()] + f"{HINT_WORD} " + text[match.end() :], encoding="utf-8")
                return path
    sys.exit("no catalogued mistake with a hint to edit")


def proofs_line(stdout: str) -> str:
    found = re.search(r"proof cache: (.*)", stdout)
    return found.group(1) if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--no-verify", action="store_true", help="only the builds")
    parser.add_argument("--with-all", action="store_true", help="also time `coursegen verify --all` (CI's run)")
    args = parser.parse_args()
    coursegen = coursegen_command()
    rows: list[tuple[str, float, float, str]] = []
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="coursegen-bench-") as folder:
        course = Path(folder) / "course"
        shutil.copytree(
            args.root.resolve(),
            course,
            ignore=shutil.ignore_patterns(
                ".git", "_site", ".coursegen-cache", "__pycache__", "*.egg-info", "node_modules", ".hypothesis"
            ),
        )
        site = Path(folder) / "site"
        build = [*coursegen, "build", "--root", str(course), "-o", str(site), "--quiet"]
        for label in ("build (cold)", "build (no change)"):
            wall, cpu, out = run(build, course)
            rows.append((label, wall, cpu, out.strip().splitlines()[-1].split("; outputs: ")[-1]))
        lesson, _ = edit_prose(course)
        wall, cpu, out = run(build, course)
        page = site / "en" / f"{lesson}.html"
        visible = PROSE_WORD in page.read_text(encoding="utf-8")
        rows.append(("build (one prose word)", wall, cpu, f"visible on {page.relative_to(site)}: {visible}"))
        if not visible:
            sys.exit(f"the edit does not show on {page}")
        sizes = [p.stat().st_size for p in site.rglob("*") if p.is_file()]
        if not args.no_verify:
            verify = [*coursegen, "verify", "--root", str(course)]
            for label in ("verify (cold)", "verify (no change)"):
                wall, cpu, out = run(verify, course)
                rows.append((label, wall, cpu, proofs_line(out)))
            hint_file = edit_hint(course)
            wall, cpu, out = run(verify, course)
            rows.append(("verify (one hint edited)", wall, cpu, f"{proofs_line(out)}; {hint_file.name}; all pass"))
            if args.with_all:
                wall, cpu, out = run([*verify, "--all"], course)
                rows.append(("verify --all (CI)", wall, cpu, proofs_line(out)))
    load_after = os.getloadavg()[0]
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before:.1f} before, {load_after:.1f} after "
        "(above 0: other processes compete; wall times grow with it)"
    )
    print(f"site: {sum(sizes) / 1024:.0f} KB in {len(sizes)} files")
    cold = {label.split(" ")[0]: wall for label, wall, _, _ in rows if label.endswith("(cold)")}
    cold_cpu = {label.split(" ")[0]: cpu for label, _, cpu, _ in rows if label.endswith("(cold)")}
    print(f"  {'command':<28} {'wall':>8} {'CPU':>8} {'ratio':>7} {'CPU ratio':>9} {'target':>12}  detail")
    failed = []
    for label, wall, cpu, detail in rows:
        base = cold.get(label.split(" ")[0])
        ratio = wall / base if base else float("nan")
        target = TARGETS.get(label)
        verdict = ""
        if target is not None:
            verdict = f"<={target:.2f} {'ok' if ratio <= target else 'MISSED'}"
            if ratio > target:
                failed.append(label)
        cpu_base = cold_cpu.get(label.split(" ")[0])
        cpu_ratio = cpu / cpu_base if cpu_base else float("nan")
        print(f"  {label:<28} {wall:7.2f}s {cpu:7.2f}s {ratio:6.3f}x {cpu_ratio:8.3f}x {verdict:>12}  {detail}")
    print("targets: " + ("all met" if not failed else "missed: " + ", ".join(failed)))


if __name__ == "__main__":
    main()
