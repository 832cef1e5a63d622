"""Issue 34, item 6: a reference whose docstring changed without `coursegen stubs` fails verify and
build, located at the stub's first differing line, with the fix; a STUDENTS.md that is not what
`coursegen guide` writes now is a build warning."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .course import REPO, make_term_course


def run(root, *args):
    return subprocess.run(
        [sys.executable, str(REPO / "cli.py"), *args, "--root", str(root)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=600,
    )  # fmt: skip


def edit_reference_docstring(root):
    reference = root / "solutions" / "running.py"
    text = reference.read_text(encoding="utf-8")
    assert "the spacing of the samples." in text
    reference.write_text(text.replace("the spacing of the samples.", "the spacing h > 0 of the samples."))
    stub_lines = (root / "exercises" / "running.py").read_text(encoding="utf-8").splitlines()
    return 1 + next(i for i, line in enumerate(stub_lines) if "the spacing of the samples." in line)


@pytest.mark.parametrize("command", ["verify", "build"])
def test_a_stale_stub_fails_located_with_the_fix(tmp_path, command):
    root = make_term_course(tmp_path / "course")
    line = edit_reference_docstring(root)
    done = run(root, command)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    said = done.stdout + done.stderr
    assert f"exercises/running.py:{line}:" in said and "coursegen stubs" in said, said[-2000:]
    assert "exercises/quadrature.py" not in said  # only the stale one


def test_a_current_stub_does_not_stop_verify_at_the_stubs(tmp_path):
    from coursegen.stubs import stale_stub_errors

    root = make_term_course(tmp_path / "course")
    assert stale_stub_errors(root) == []
    edit_reference_docstring(root)
    assert [e.location.file for e in stale_stub_errors(root)] == ["exercises/running.py"]


def test_a_stale_students_md_is_a_build_warning(tmp_path):
    from coursegen.build import stale_guide_warnings
    from coursegen.loader import load_course
    from coursegen.newcourse import guide_of

    root = make_term_course(tmp_path / "course")
    assert stale_guide_warnings(load_course(root)) == []  # no STUDENTS.md: nothing to say
    (root / "STUDENTS.md").write_text(guide_of(root), encoding="utf-8")
    assert stale_guide_warnings(load_course(root)) == []
    course = root / "content" / "course.yaml"
    course.write_text(course.read_text(encoding="utf-8").replace("route: lms", "route: gradescope"))
    (warning,) = stale_guide_warnings(load_course(root))
    assert "STUDENTS.md" in warning and "coursegen guide -o STUDENTS.md" in warning
