"""Quiz engine timings on the real course: gate, variants, exports, grading.

    python bench/quiz_bench.py [--students 100]

Prints one line per step (seconds, wall clock). Not a test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(label: str, func):
    start = time.perf_counter()
    result = func()
    print(f"{label:<48} {time.perf_counter() - start:8.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    args = parser.parse_args()

    from coursegen.quiz import grade
    from coursegen.quiz.exports import render
    from coursegen.quiz.gate import verify_quizzes
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.show import answer_key
    from coursegen.quiz.variants import make_variant

    quizzes = timed("load 5 quiz files", lambda: course_quizzes(ROOT))
    timed("import torch + references (first variant)", lambda: make_variant(quizzes[0], "warm-up"))
    problems = timed("quality gate (all quizzes)", lambda: verify_quizzes(ROOT))
    print(f"{'  gate problems':<48} {len(problems):8d}")
    students = [f"s{n:04d}" for n in range(args.students)]
    variants = timed(
        f"variants: {args.students} students x {len(quizzes)} quizzes",
        lambda: [make_variant(q, s) for s in students for q in quizzes],
    )
    for fmt in ("gift", "moodle-xml", "qti", "json"):
        data = timed(f"export {fmt} ({len(variants)} variants)", lambda: render(variants, fmt))
        print(f"{'  bytes':<48} {len(data):8d}")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(grade.COLUMNS)
    for variant in variants:
        for item in variant["questions"]:
            writer.writerow([variant["student"], variant["quiz"], item["id"], answer_key(item).split(" | ")[0]])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "responses.csv"
        path.write_text(out.getvalue(), encoding="utf-8")
        rows = grade.read_responses(path)
        results = timed(
            f"grade {len(rows)} responses", lambda: grade.grade_responses(rows, {q.quiz.id: q for q in quizzes})
        )
    summary = grade.summarise(results)
    full = sum(s["score"] == s["max_score"] for s in summary)
    print(f"{'  attempts with full marks (answer keys)':<48} {full:8d} / {len(summary)}")


if __name__ == "__main__":
    main()
