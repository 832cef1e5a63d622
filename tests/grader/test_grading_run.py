"""The grading run is one frozen value (grader/scaleout/run.py), handed to a grading process as plain
data and rebuilt there; run_batch takes it instead of loose arguments (issue 33: at most six)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path

import pytest

from grader.scaleout.batch import run_batch
from grader.scaleout.executors import Dask, InProcess, LocalPool
from grader.scaleout.run import GradingRun
from tests.first_course import COURSE


def test_run_batch_takes_at_most_six_parameters():
    assert len(inspect.signature(run_batch).parameters) <= 6


def test_a_run_is_frozen_and_changed_only_as_a_new_value():
    run = GradingRun(course=COURSE, seed=5, lang="zh")
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.seed = 6  # type: ignore[misc]
    changed = run.but(seed=6)
    assert (run.seed, changed.seed, changed.lang, changed.course) == (5, 6, "zh", COURSE)


def test_a_grading_process_rebuilds_the_run_it_is_handed_from_plain_data(tmp_path):
    run = GradingRun(
        course=COURSE, seed=7, lang="zh", checks_dir=tmp_path / "checks", hide=("/x", "/y"), sandbox_factory="m:f"
    )
    spec = json.loads(json.dumps(run.spec()))  # crosses a process boundary as JSON would
    again = GradingRun.from_spec(spec)
    assert again.course.root == COURSE.root and Path(spec["root"]) == COURSE.root
    assert (again.seed, again.lang, again.checks_dir, again.hide, again.sandbox_factory) == (
        7,
        "zh",
        tmp_path / "checks",
        ("/x", "/y"),
        "m:f",
    )


def test_every_executor_has_the_one_grade_method():
    for executor in (InProcess(), LocalPool(2), Dask("tcp://127.0.0.1:1")):
        assert list(inspect.signature(executor.grade).parameters) == ["run", "jobs", "finish"]
