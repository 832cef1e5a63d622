"""`coursegen new` used as a library (write_new_course) reads the new course to write its student
guide. The engine keeps no active course, so a course loaded before is the same value afterwards
(its registry, its solutions) and nothing of the new course reaches it (a second course once
leaked into the rest of the process: later tests saw the new course's one exercise where the
first course's twenty were)."""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from coursegen.newcourse import write_new_course
from grader.course import Course

STATISTICS = Path(__file__).resolve().parents[1] / "courses" / "statistics"


def test_writing_a_new_course_leaves_a_loaded_course_as_it_was(tmp_path):
    before = Course.load(STATISTICS)
    names_before = {e.name for e in before.registry.exercises}
    median_before = before.reference("median")
    path_before = list(sys.path)

    write_new_course(tmp_path / "other")

    after = Course.load(STATISTICS)
    assert after is before and {e.name for e in after.registry.exercises} == names_before
    assert "median" in names_before and after.reference("median") is median_before
    assert median_before(torch.tensor([7.0, 1.0, 4.0, 2.0])).item() == 3.0  # by hand: the mean of 2 and 4
    assert sys.path == path_before
    new = Course.load(tmp_path / "other")
    assert new is not before and not names_before & {e.name for e in new.registry.exercises}
