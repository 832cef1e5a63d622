"""One batch of tests/grader/test_partner.py, graded in a fresh process: a partner is forked only where
no other thread could hold a lock at the fork (grader/running/partner.py), and a pytest worker has run
other tests' threads before. Prints a JSON object: the results and how many jobs went to a partner.

    python -m tests.grader.partner_run MODE COURSE_ROOT FOLDER GRADEBOOK

MODE: alone (no partner), together, dies (the partner dies on its second job), broken (the partner's
grading raises), unfair (the sandbox cannot give each child its own CPU clock and weight)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from grader.course import Course
from grader.running import partner as partners
from grader.running.session import GraderSetupError, GradingDriver
from grader.scaleout.batch import run_batch
from grader.scaleout.executors import InProcess
from grader.scaleout.run import GradingRun


def main(mode: str, root: str, folder: str, book: str) -> None:
    first = os.getpid()
    handed = [0]
    job_message, receive, grade = partners._job_message, partners._receive, GradingDriver._grade

    def counted(job):
        handed[0] += 1
        return job_message(job)

    partners._job_message = counted
    if mode == "alone":
        partners.MIN_JOBS = 10**9
    taken: list[int] = []

    def dying(sock):
        message = receive(sock)
        if os.getpid() != first and message and "job" in message:
            taken.append(message["ticket"])
            if len(taken) == 2:
                os._exit(9)  # as a SIGKILL would: no word to the first process
        return message

    def broken(self, *args):
        if os.getpid() != first:
            raise RuntimeError("the partner's own fault")
        return grade(self, *args)

    if mode == "dies":
        partners._receive = dying
    if mode == "broken":
        GradingDriver._grade = broken
    if mode == "unfair":
        from grader.sandbox import Sandbox

        Sandbox.shares_cpu_fairly = lambda self: False
    try:
        results = run_batch(
            [Path(folder)],
            GradingRun(course=Course.load(root), seed=7),
            InProcess(),
            gradebook=Path(book),
            progress=False,
        )
    except GraderSetupError as exc:
        print(json.dumps({"error": str(exc), "handed": handed[0]}))
        return
    summary = sorted(
        [r.student, r.submission, r.score, r.max_score, [[t.name, t.status, t.output, t.problem] for t in r.tests]]
        for r in results
    )
    print(json.dumps({"results": summary, "handed": handed[0]}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
