"""`coursegen similarity` timing for one assignment of a generated class (default 200 students).

    python bench/similarity.py [--students 200] [--keep DIR]

Writes a class of the first course's `tokens` module (each student's encode, pad_batch and
merge_pair drawn from the variants of tests/course/similarity_class.py, a tenth of them notebooks,
a few verbatim copies) and a gradebook of synthetic runs for it (18 checks per student; wrong
outputs fingerprinted as the grader does), then times what `coursegen similarity` does (the same
function the command calls) and prints the wall and CPU time, the number of pairs and of flags.
Target: under a minute for 200 students. Not a test: the numbers depend on the machine and its
load. The generated class reuses a few dozen function variants, so many of its pairs share whole
functions: the flag count says nothing about the rule (tests/course/test_similarity.py does).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def write_class(folder: Path, students: int) -> list:
    from grader.fingerprint import fingerprint
    from grader.reporting.results import CheckResult, SubmissionResult
    from tests.course import similarity_class as variants

    rng = random.Random(0)
    encodes = variants.ENCODE + variants.STUB_ENCODE + variants.NEW_ID
    merges = variants.MERGE + variants.FIRST_ONLY + variants.TWO_BY_TWO
    results = []
    for k in range(students):
        student = f"student-{k:04d}"
        choice = (rng.randrange(len(encodes)), rng.randrange(len(variants.PAD)), rng.randrange(len(merges)))
        code = "import torch\n" + encodes[choice[0]] + variants.PAD[choice[1]] + merges[choice[2]]
        if k % 10 == 9:
            name, data = "tokens.ipynb", variants._notebook(["import torch", code])
        else:
            name, data = "tokens.py", code
        (folder / student).mkdir(parents=True)
        (folder / student / name).write_text(data, encoding="utf-8")
        tests = []
        for check in range(18):
            exercise = ("encode", "pad_batch", "merge_pair")[check // 6]
            variant = choice[check // 6]
            wrong = variant >= 5 and check % 2 == 0  # the mistaken variants fail every other check
            tests.append(
                CheckResult(
                    name=f"test_{exercise}_{check}",
                    exercise=exercise,
                    score=0.0 if wrong else 1.0,
                    max_score=1.0,
                    status="failed" if wrong else "passed",
                    fingerprint=fingerprint("value", [float(variant), float(check)]) if wrong else "",
                )
            )
        score = sum(t.score for t in tests)
        sha = hashlib.sha256(data.encode("utf-8")).hexdigest()
        results.append(SubmissionResult(student, f"{student}/{name}", sha, score, 18.0, tests))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="write the class, gradebook and output here (kept)")
    args = parser.parse_args()
    from coursegen.commands.similarity import run_similarity
    from grader.reporting.gradebook import Gradebook

    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        submissions = work / "submissions"
        submissions.mkdir(parents=True, exist_ok=True)
        with Gradebook(work / "gradebook.sqlite") as book:
            for result in write_class(submissions, args.students):
                book.record(result, checks_hash="bench", seed=1)
        wall, cpu = time.perf_counter(), time.process_time()
        status = run_similarity(ROOT, submissions, work / "gradebook.sqlite", work / "similarity", None)
        elapsed, used = time.perf_counter() - wall, time.process_time() - cpu
        import json

        data = json.loads((work / "similarity" / "similarity.json").read_text(encoding="utf-8"))
        flagged = sum(p["flagged"] for p in data["pairs"])
        print(
            f"coursegen similarity, {data['students']} students: {elapsed:.2f} s wall, {used:.2f} s cpu; "
            f"{len(data['pairs'])} pairs, {flagged} flagged (exit {status})"
        )


if __name__ == "__main__":
    main()
