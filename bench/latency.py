"""Benchmark the latency a user sees: whole-process wall time, from start to written report.

    python bench/latency.py [--runs 5] [--anchor ../shared/bench/anchor20] [--lesson rope-alibi] [--workers 2]
                            [--assignment position-sinusoidal]

Times, in one run of this script, medians over RUNS runs each (the commands take turns, so a
change of the machine's load hits all of them alike):

    floor      python -c "import torch"                (the floor of any torch grader)
    one .py    coursegen grade s01/positions.py -o report.json
    notebook   coursegen grade <lesson>.ipynb -o report.json (the lesson's student notebook,
               its exercise cells filled in with the instructor notebook's code)
    batch      coursegen grade anchor20/ -o report.json, on a fresh copy of the anchor20 folder
               with a fresh gradebook each run (as a user types it: default --workers)
    batch -w   the same with --workers 2 (two grading processes, each with its warm worker)

With --compare CHECKOUT the same commands also run through CHECKOUT/cli.py, taking turns with
this checkout's (e.g. `git archive main | tar -x -C /tmp/main`), so both see the same load.

and prints each with its ratio to the floor measured in the same run (absolute times move with
the machine's load; the ratios much less). It also checks the batch's scores on the
sinusoidal_encoding and apply_rope checks: 14 students full, 3 partial (s04, s11, s17 swap sin
and cos), 3 zero (s07, s14, s20 raise NotImplementedError), and exits 1 when they differ.

"Full" means every check of those two exercises passed except the error-path checks (named
`*_raises_*`: odd `d_model` must raise ValueError): the anchor code was written against the
anchors' six one-point tests, which do not ask for it, and none of its 20 students raises.
Their points are printed apart, so nothing is hidden.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ("sinusoidal_encoding", "apply_rope")
EXPECTED = {"full": 14, "partial": 3, "zero": 3}


def default_anchor() -> Path:
    """The shared workload: ../shared/bench/anchor20 next to the checkout (or its worktrees' parent)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        candidate = base / "shared" / "bench" / "anchor20"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "bench" / "anchor20"


def coursegen_command() -> list[str]:
    """The `coursegen` a user types: the console script next to this interpreter."""
    script = Path(sys.executable).parent / "coursegen"
    return [str(script)] if script.exists() else [sys.executable, str(ROOT / "cli.py")]


def filled_notebook(lesson: str, path: Path) -> Path:
    """The lesson's English student notebook with every exercise cell holding the instructor
    notebook's code for that exercise (what a student who solved everything hands in)."""
    sys.path.insert(0, str(ROOT))
    import nbformat

    from coursegen.loader import load_course
    from coursegen.notebooks import render_notebooks

    with tempfile.TemporaryDirectory(prefix="coursegen-nbcache-") as cache:
        outputs = render_notebooks(
            load_course(ROOT), solutions=True, lessons=[lesson], languages=["en"], cache_dir=Path(cache)
        )
    student, solution = (
        nbformat.reads(outputs[name].decode("utf-8"), as_version=4)
        for name in sorted(outputs, key=lambda n: "solution" in n)
    )

    def exercise_cells(notebook):
        return {
            cell.metadata["coursegen"]["exercise"]: cell
            for cell in notebook.cells
            if cell.metadata.get("coursegen", {}).get("role") == "exercise"
        }

    answers = exercise_cells(solution)
    for name, cell in exercise_cells(student).items():
        cell.source = answers[name].source
    nbformat.write(student, str(path))
    return path


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds of the command, and the CPU seconds of it and every process it waited for."""
    cpu, started = children_cpu(), time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.exit(f"failed (exit {completed.returncode}): {' '.join(command)}\n{completed.stderr}")
    return wall, children_cpu() - cpu


def classify(report: Path) -> tuple[dict[str, list[str]], dict[str, set[tuple[float, float]]]]:
    """Students by category on the EXERCISES checks, and the (points, of max) each category got."""
    totals: dict[str, list[float]] = {}
    for result in json.loads(report.read_text(encoding="utf-8")):
        row = totals.setdefault(result["student"], [0.0, 0.0, 0.0, 0.0])  # score, max, error-path score, max
        for test in result["tests"]:
            if test["exercise"] in EXERCISES:
                slot = 2 if "_raises_" in test["name"] else 0
                row[slot] += test["score"]
                row[slot + 1] += test["max_score"]
    groups: dict[str, list[str]] = {"full": [], "partial": [], "zero": []}
    points: dict[str, set[tuple[float, float]]] = {"full": set(), "partial": set(), "zero": set()}
    for student, (score, top, error_score, error_top) in sorted(totals.items()):
        kind = "zero" if score + error_score == 0 else "full" if top > 0 and score == top else "partial"
        groups[kind].append(student)
        points[kind].add((score + error_score, top + error_top))
    return groups, points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument("--anchor", type=Path, default=default_anchor(), help="the anchor20 folder (read only)")
    parser.add_argument("--lesson", default="rope-alibi", help="the lesson whose filled notebook is graded")
    parser.add_argument("--workers", type=int, default=2, help="--workers of the batch (default 2)")
    parser.add_argument(
        "--assignment", default=None, help="also time the file and the batch graded with --assignment ID"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        metavar="CHECKOUT",
        help="also time another checkout's cli.py (e.g. an export of main), in the same runs",
    )
    args = parser.parse_args()
    if not (args.anchor / "s01" / "positions.py").is_file():
        sys.exit(f"{args.anchor}: not the anchor20 workload (no s01/positions.py); give --anchor")

    coursegen = coursegen_command()
    with tempfile.TemporaryDirectory(prefix="coursegen-latency-") as tmp:
        tmp = Path(tmp)
        single = tmp / "single"
        shutil.copytree(args.anchor / "s01", single)
        notebook = filled_notebook(args.lesson, tmp / f"{args.lesson}.ipynb")

        def batch_command(label: str, program: list[str], workers: list[str], root: Path):
            def make(run: int) -> tuple[list[str], Path]:
                folder = tmp / f"{label}{run}"
                shutil.copytree(args.anchor, folder / "anchor20")
                for path in [folder, *folder.rglob("*")]:
                    path.chmod(0o755 if path.is_dir() else 0o644)  # the shared copy is read-only
                return [
                    *program,
                    "grade",
                    "--root",
                    str(root),
                    "anchor20",
                    *workers,
                    "--gradebook",
                    "gradebook.sqlite",
                    "--format",
                    "json",
                    "-o",
                    "report.json",
                ], folder

            return make

        def grading(label: str, program: list[str], root: Path, suffix: str = "") -> dict:
            return {
                "one .py" + suffix: lambda run: (
                    [
                        *program,
                        "grade",
                        "--root",
                        str(root),
                        str(single / "positions.py"),
                        "--format",
                        "json",
                        "-o",
                        str(tmp / f"py{label}{run}.json"),
                    ],
                    tmp,
                ),
                "notebook" + suffix: lambda run: (
                    [
                        *program,
                        "grade",
                        "--root",
                        str(root),
                        str(notebook),
                        "--format",
                        "json",
                        "-o",
                        str(tmp / f"nb{label}{run}.json"),
                    ],
                    tmp,
                ),
                "batch" + suffix: batch_command(f"batch{label}", program, [], root),
                "batch -w" + suffix: batch_command(f"batchw{label}", program, ["--workers", str(args.workers)], root),
            }

        commands = {"floor": lambda run: ([sys.executable, "-c", "import torch"], tmp), **grading("", coursegen, ROOT)}
        if args.assignment:  # the same file and batch graded against a course assignment (issue 22)
            one, batch = commands["one .py"], batch_command("batcha", coursegen, [], ROOT)
            extra = ["--assignment", args.assignment]

            def with_assignment(make):
                def made(run: int) -> tuple[list[str], Path]:
                    command, cwd = make(run)
                    return command + extra, cwd

                return made

            commands["one .py --assignment"] = with_assignment(one)
            commands["batch --assignment"] = with_assignment(batch)
        if args.compare:
            commands.update(
                grading("compare", [sys.executable, str(args.compare / "cli.py")], args.compare, " [compare]")
            )
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        load_before = os.getloadavg()
        timed([sys.executable, "-c", "import torch"], tmp)  # warm the file cache, not timed
        for run in range(args.runs):
            for name, make in commands.items():
                command, cwd = make(run)
                wall, cpu = timed(command, cwd)
                times[name].append(wall)
                cpus[name].append(cpu)
        load_after = os.getloadavg()

        groups, points = classify(tmp / f"batch{args.runs - 1}" / "report.json")
        every = [
            classify(tmp / f"{label}{run}" / "report.json")[0]
            for run in range(args.runs)
            for label in ("batch", "batchw")
        ]

    floor = statistics.median(times["floor"])
    print(
        f"machine: {os.cpu_count()} cores; load average (1 min) {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after (above 0: other processes compete for the cores)"
    )
    print(
        f"{args.runs} runs each, whole process, start to written report: median wall (min-max), its ratio to "
        "the floor's, median CPU (all processes)"
    )
    labels = {
        "floor": 'python -c "import torch"',
        "one .py": "coursegen grade s01/positions.py",
        "notebook": f"coursegen grade {args.lesson}.ipynb (filled)",
        "batch": "coursegen grade anchor20/ (20 students, 40 files)",
        "batch -w": f"coursegen grade anchor20/ --workers {args.workers}",
        "one .py --assignment": f"coursegen grade s01/positions.py --assignment {args.assignment}",
        "batch --assignment": f"coursegen grade anchor20/ --assignment {args.assignment}",
    }
    for name, values in times.items():
        base, _, compared = name.partition(" [")
        label = labels[base] + (f" [{args.compare.name}]" if compared else "")
        median = statistics.median(values)
        print(
            f"  {label:<60} {median:6.2f} s  ({min(values):.2f}-{max(values):.2f})  "
            f"{median / floor:4.2f}x the floor   CPU {statistics.median(cpus[name]):5.2f} s"
        )
    print("targets: one submission <= 1.6x the floor, the batch of 20 students <= 2.0x the floor")
    counts = {kind: len(students) for kind, students in groups.items()}
    shown = {kind: ", ".join(f"{s:g}/{m:g}" for s, m in sorted(points[kind])) or "-" for kind in groups}
    print(
        f"batch scores on the {' and '.join(EXERCISES)} checks: {counts['full']} full ({shown['full']}), "
        f"{counts['partial']} partial ({shown['partial']}: {', '.join(groups['partial'])}), "
        f"{counts['zero']} zero ({', '.join(groups['zero'])})"
    )
    print(
        "  (full: every check passed but the error-path check odd d_model -> ValueError, which the anchors' "
        "tests do not ask for)"
    )
    stable = all(g == groups for g in every)
    if counts != EXPECTED or not stable:
        print(
            f"UNEXPECTED: expected {EXPECTED['full']} full / {EXPECTED['partial']} partial / "
            f"{EXPECTED['zero']} zero{'' if stable else ', and the same in every run and mode'}"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
