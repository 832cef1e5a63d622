"""The course root is hidden from student code by the sandbox itself, whatever calls it: the CLI,
the library (grader.running.grade, a Dask worker, an exported autograde.py) or a test. With the engine
installed as a wheel the course lies anywhere, e.g. in a folder the child otherwise keeps (/var/lib)."""

from __future__ import annotations

import shutil
import site
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from grader.course import Course
from grader.sandbox import Sandbox
from grader.sandbox.sandbox import course_root_folders


def visible_folder(fallback: Path) -> Path:
    """A folder under /var/lib (a system folder the child keeps visible, unlike /tmp)."""
    folder = Path("/var/lib") / f"coursegen-course-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir()
    except OSError:
        pytest.skip("cannot write under /var/lib: no folder the child would otherwise see")
    folder.chmod(0o755)
    return folder


def test_a_course_root_the_child_would_see_is_hidden_without_being_asked():
    outside = visible_folder(Path(tempfile.mkdtemp()))
    try:
        course = outside / "course"
        for relative in ("solutions/rope.py", "grader/checks/test_rope.py", "content/course.yaml"):
            (course / relative).parent.mkdir(parents=True, exist_ok=True)
            (course / relative).write_text("SECRET = 1\n")
        (outside / "public.txt").write_text("visible\n")
        for path in [outside, *course.rglob("*"), course]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        files = [
            outside / "public.txt",
            *(course / r for r in ("solutions/rope.py", "grader/checks/test_rope.py", "content/course.yaml")),
        ]
        probe = f"import os\ndef f():\n    return [os.path.exists(p) for p in {[str(f) for f in files]!r}]\n"
        # no hide=: the sandbox hides the root of the course it is handed on its own
        with Sandbox(course=Course.load(course)) as box:
            with box.load(probe) as candidate:
                # nothing under /var exists for the child at all (allow-list root, issue 23); the
                # course is named hidden by name all the same
                expected = [False] * 4 if "allow-list-root" in box.isolation else [True, False, False, False]
                assert candidate.f() == expected
            assert f"hidden:{course}" in box.isolation
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_a_course_root_inside_the_python_installation_is_left_to_the_package_by_package_hiding():
    # An exported grading package installed into site-packages: hiding site-packages would hide
    # Python itself, so the course's packages there are hidden one by one; the references and
    # checks are still probed (grading refuses to start when they are readable).
    packages = Path(site.getsitepackages()[0]).resolve()
    hide, probes = course_root_folders(packages)
    assert hide == []
    assert probes == [str(packages / "solutions"), str(packages / "grader" / "checks")]
    for folder in (Path(sys.prefix).resolve(), Path(sys.prefix).resolve().parent):
        assert course_root_folders(folder)[0] == []


def test_any_other_course_root_is_hidden_as_a_whole(tmp_path):
    assert course_root_folders(tmp_path) == (
        [str(tmp_path.resolve())],
        [str(tmp_path.resolve() / "solutions"), str(tmp_path.resolve() / "grader" / "checks")],
    )
