"""Issue 38, item 4: the grading service applies the assignment's due date and late policy at the
server's receipt time. A real `coursegen service start` process on a loopback port serves the
small numerics course (tests/courses/numerics, assignment hw1) whose due date is set here 90
minutes in the past, with a policy worked out by hand:

    late: 25 % of the raw score per day or part of a day, no grace
    a full-marks submission (7 of 7) received now: late by 90 min and a little -> day 1
    -> penalty 25 % of 7 = 1.75 -> final 5.25
"""

from __future__ import annotations

import datetime
import sqlite3

import pytest

from tests.service.running import issue_tokens, start_service, wait_graded
from tests.term.course import make_term_course, solution_module

httpx = pytest.importorskip("httpx")

pytestmark = [pytest.mark.slow]

RAW, PENALTY, FINAL = 7.0, 1.75, 5.25  # by hand, see the docstring
LATE = datetime.timedelta(minutes=90)


def test_a_late_submission_is_charged_its_penalty_at_receipt(tmp_path):
    root = make_term_course(tmp_path / "course")
    due = (datetime.datetime.now(datetime.timezone.utc) - LATE).replace(microsecond=0)
    course_yaml = root / "content" / "course.yaml"
    course_yaml.write_text(
        course_yaml.read_text(encoding="utf-8").replace(
            "    lessons: [quadrature, running]\n",
            f"    lessons: [quadrature, running]\n    due: {due.isoformat()}\n    late: {{per_day: 25}}\n",
        ),
        encoding="utf-8",
    )
    gradebook = tmp_path / "gradebook.sqlite"
    tokens = issue_tokens(gradebook, ["ana"], tmp_path)
    service = start_service(gradebook, "--root", str(root), "--workers", "1")
    try:
        files = [
            ("file", (f"{module}.py", solution_module(root, module).encode(), "text/x-python"))
            for module in ("quadrature", "running")
        ]
        with httpx.Client(timeout=60) as client:
            sent = client.post(
                f"{service.url}/api/v1/submissions",
                headers={"Authorization": f"Bearer {tokens['ana']}"},
                data={"assignment": "hw1"},
                files=files,
            )
            assert sent.status_code == 202, sent.text
            body = wait_graded(client, service.url, tokens["ana"], sent.json()["id"])
            listed = client.get(
                f"{service.url}/api/v1/submissions",
                params={"assignment": "hw1"},
                headers={"Authorization": f"Bearer {tokens['ana']}"},
            ).json()["submissions"]
    finally:
        service.stop()
    assert body["status"] == "done", body
    received = datetime.datetime.fromisoformat(body["submitted_at"])
    assert body["lateness"] == pytest.approx((received - due).total_seconds(), abs=0.01)
    assert LATE.total_seconds() <= body["lateness"] < LATE.total_seconds() + 600
    assert (body["raw_score"], body["penalty"], body["score"], body["max_score"]) == (RAW, PENALTY, FINAL, RAW)
    assert body["penalty_share"] == 0.25
    assert [(s["raw_score"], s["penalty"], s["score"]) for s in listed] == [(RAW, PENALTY, FINAL)]
    db = sqlite3.connect(gradebook)
    rows = db.execute("SELECT student, source, raw, penalty, final FROM lateness").fetchall()
    raw_runs = db.execute("SELECT score FROM runs WHERE student = 'ana'").fetchall()
    db.close()
    assert rows == [("ana", "service", RAW, PENALTY, FINAL)]
    assert raw_runs == [(RAW,)]  # the run keeps the raw score; the penalty lives apart
