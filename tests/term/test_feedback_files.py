"""Issue 34, item 7: `coursegen feedback --gradebook GB --assignment ID -o DIR` writes one
self-contained HTML file per student: their score and checks, hidden checks as passed/failed only,
nothing of another student, no script or outside resource."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from .course import ASSIGNMENT, REPO, grade_locally, make_term_course, student_files, write_student_folders

pytestmark = pytest.mark.slow


def test_one_file_per_student_with_only_their_own_result(tmp_path):
    root = make_term_course(tmp_path / "course")
    files = student_files(root)
    local = grade_locally(root, write_student_folders(tmp_path / "batch", files), tmp_path)
    out = tmp_path / "feedback"
    done = subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "feedback", "--gradebook", str(tmp_path / "gb.sqlite"),
         "--assignment", ASSIGNMENT, "-o", str(out), "--root", str(root)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert written == sorted(f"{student}.html" for student in files)
    for student, result in local.items():
        page = (out / f"{student}.html").read_text(encoding="utf-8")
        assert f"{result['score']:g}/{result['max_score']:g}" in page
        assert not any(other in page for other in files if other != student), student
        assert "<script" not in page.lower() and not re.search(r"(src|href)=", page)
        for test in result["tests"]:
            assert test["name"] in page
            if test["hidden"]:  # a row with its status only: none of the check's output
                row = page.split(test["name"], 1)[1].split("</tr>", 1)[0]
                assert "<pre>" not in row and "hidden" in row, row
    wrong = (out / "two_modules.html").read_text(encoding="utf-8")
    assert "cumulative_trapezoid is wrong at index" in wrong and "differ by" in wrong
