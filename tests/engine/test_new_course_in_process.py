"""`coursegen new` used as a library (write_new_course) reads the new course to write its student
guide; the course the caller had active stays active (its registry, its solutions), so a second
course never leaks into the rest of the process (it did: later tests saw the new course's one
exercise where the active course's twenty were)."""

from __future__ import annotations

import sys
from pathlib import Path

from coursegen.newcourse import write_new_course

STATISTICS = Path(__file__).resolve().parents[1] / "courses" / "statistics"


def test_writing_a_new_course_leaves_the_callers_course_active(tmp_path):
    from grader.course import current
    from grader.courseroot import use_course_root

    use_course_root(STATISTICS)  # undone after the test (tests/conftest.py)
    before = current()
    names_before = {e.name for e in before.registry.exercises}
    path_before = list(sys.path)
    write_new_course(tmp_path / "other")
    after = current()

    assert after is before and {e.name for e in after.registry.exercises} == names_before
    assert after.root == STATISTICS.resolve() and "median" in names_before
    assert sys.path == path_before
    assert (tmp_path / "other" / "exercises" / "registry.py").is_file()  # the new course was written all the same
