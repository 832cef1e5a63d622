"""Class report timing and size for a generated class (default 2,000 students).

    python bench/report.py [--students 2000] [--quiz-students 2000] [--keep DIR]

Writes a synthetic gradebook (one submission per exercise module per student, the mistakes and
problems of tests/report/synthetic.py), a quiz gradebook for the lm-head-tying quiz graded per
student variant, then times `coursegen report` on them (the same function the command calls)
and prints the report's size. Targets: under 10 s and under 10 MB. Not a test: the numbers
depend on the machine and its load (print CPU time next to wall time for that reason).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(label: str, func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    print(f"{label:<52} {time.perf_counter() - wall:8.2f} s wall {time.process_time() - cpu:8.2f} s cpu")
    return result


def quiz_gradebook(path: Path, students: int) -> None:
    from coursegen.quiz.grade import LETTERS, append_to_gradebook, grade_responses
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant

    (loaded,) = course_quizzes(ROOT, ["lm-head-tying"])
    rng = random.Random(0)
    rows = []
    for k in range(students):
        student = f"student-{k:05d}"
        ability = k / max(1, students - 1)
        for item in make_variant(loaded, student)["questions"]:
            if "options" not in item:
                continue
            right = next(i for i, o in enumerate(item["options"]) if o["correct"])
            pick = right if rng.random() < 0.3 + 0.6 * ability else rng.randrange(len(item["options"]))
            rows.append(
                {
                    "student": student,
                    "quiz": loaded.quiz.id,
                    "question": item["id"],
                    "response": LETTERS[pick],
                    "line": len(rows) + 2,
                }
            )
    append_to_gradebook(path, grade_responses(rows, {loaded.quiz.id: loaded}), "0" * 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=2000)
    parser.add_argument("--quiz-students", type=int, default=2000)
    parser.add_argument("--keep", type=Path, help="write everything here instead of a temporary folder")
    args = parser.parse_args()

    from coursegen.report import build_report
    from tests.report.synthetic import write_gradebook

    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        book, quizzes, out = folder / "gradebook.sqlite", folder / "quizzes.sqlite", folder / "report"
        for leftover in (book, quizzes):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{leftover}{suffix}").unlink(missing_ok=True)
        timed(
            f"write a gradebook of {args.students} students",
            lambda: write_gradebook(book, args.students, reruns=args.students // 10),
        )
        timed(
            f"grade quiz responses of {args.quiz_students} students",
            lambda: quiz_gradebook(quizzes, args.quiz_students),
        )
        summary = timed(
            "coursegen report (read, summarise, render, write)",
            lambda: build_report(book, out, quiz_gradebooks=[quizzes], root=ROOT),
        )
        files = [p for p in out.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        largest = max(files, key=lambda p: p.stat().st_size)
        print(
            f"report: {summary.students} students, {summary.submissions} submissions, {len(files)} files, "
            f"{size / 1e6:.2f} MB (largest {largest.relative_to(out)}: {largest.stat().st_size / 1e6:.2f} MB)"
        )


if __name__ == "__main__":
    main()
