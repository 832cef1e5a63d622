"""Issue 34, item 4: `limits:` in course.yaml is course data: validated with located errors, read
into the course value the sandbox is built from, and carried into the exported bundle."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

from .course import ASSIGNMENT, REPO, make_term_course


def test_limits_are_read_and_carried_into_the_gradescope_bundle(tmp_path):
    from coursegen.exports.gradescope import export_gradescope
    from grader.course import Course
    from grader.sandbox.limits import Limits

    root = make_term_course(tmp_path / "course", "limits: {call_seconds: 2, memory_mb: 512}\n")
    course = Course.load(root)
    assert course.limits == {"call_seconds": 2, "memory_mb": 512}
    limits = Limits(**course.limits)
    assert (limits.call_seconds, limits.memory_mb) == (2, 512) and limits.import_seconds == Limits().import_seconds
    out = tmp_path / "autograder.zip"
    export_gradescope(root, None, out, assignment_id=ASSIGNMENT)
    with zipfile.ZipFile(out) as archive:
        archive.extractall(tmp_path / "bundle")
    shipped = Course.load(tmp_path / "bundle" / "package")  # no course.yaml there: exercises/limits.json
    assert shipped.limits == course.limits


def test_a_course_without_limits_keeps_the_sandbox_defaults(tmp_path):
    from grader.course import Course

    assert Course.load(make_term_course(tmp_path / "course")).limits == {}


def test_a_bad_limit_is_a_located_error(tmp_path):
    root = make_term_course(tmp_path / "course", "limits: {call_seconds: -1, wall_clock: 3}\n")
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "check", "--root", str(root)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=300,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "content/course.yaml:" in said and "call_seconds" in said and "wall_clock" in said, said
