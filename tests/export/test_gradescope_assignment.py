"""The Gradescope zip grades one assignment definition: its exercises, out of its maximum,
whatever the submission defines (issue 22: exports agree with `coursegen grade --assignment`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from grader.reporting.assignments import Definition

from .helpers import LESSON_EXERCISES, REPO


def _declared(exercise: str) -> float:
    """The points the fixture course's checks (copied from grader/checks) declare, read by regex."""
    total = 0.0
    for path in sorted((REPO / "grader" / "checks").glob("test_*.py")):
        for block in re.split(r"\n(?=@pytest\.mark\.exercise)", path.read_text(encoding="utf-8")):
            head = block.split("def test", 1)[0]
            if f'@pytest.mark.exercise("{exercise}")' in head and "def test" in block:
                points = re.search(r"@pytest\.mark\.points\(([\d.]+)\)", head)
                total += float(points.group(1)) if points else 1.0
    return total


def test_assignment_json_carries_the_lessons_definition(gradescope_zip):
    with zipfile.ZipFile(gradescope_zip) as archive:
        assignment = json.loads(archive.read("assignment.json"))
    definition = Definition.from_json(assignment["definition"])  # its hash is checked on reading
    assert definition.names == LESSON_EXERCISES == tuple(assignment["exercises"])
    assert definition.max_score == sum(_declared(name) for name in LESSON_EXERCISES)


@pytest.mark.slow
def test_a_file_with_part_of_the_lesson_is_out_of_the_whole_lessons_maximum(gradescope_zip, tmp_path):
    root = tmp_path / "ag"
    with zipfile.ZipFile(gradescope_zip) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    shutil.copy2(REPO / "solutions" / "tokens.py", root / "submission" / "tokens.py")  # encode, pad_batch, merge_pair
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("COURSEGEN_")}
    env.update(AUTOGRADER_ROOT=str(root), COURSEGEN_PYTHON=sys.executable)
    done = subprocess.run(
        ["bash", str(root / "source" / "run_autograder")], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["extra_data"]["max_score"] == sum(_declared(name) for name in LESSON_EXERCISES)
    assert results["score"] == _declared("encode") + _declared("pad_batch")
    assert not any(t["name"].startswith("merge_pair") for t in results["tests"])  # not of this lesson
