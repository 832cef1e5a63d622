"""Round trip: a student notebook from the build, filled in (or damaged), graded by the real
`coursegen grade` command in a subprocess.

To keep the suite fast, one session fixture grades every submission of this file in a single
batch call; the full-marks notebook is also graded alone, exactly as a student would run it.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import nbformat
import pytest

from coursegen.notebooks import render_notebooks

from .alternatives import ALTERNATIVES
from .nbhelpers import PROJECT_ROOT, cell_for, read_notebook

pytestmark = pytest.mark.slow

FIXTURE_EXERCISES = ("count_parameters", "TiedLM", "apply_rope")
MISTAKE_ID = "rope-half-split"


def grade(*paths: Path, fmt: str = "json", cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "coursegen",
            "grade",
            *map(str, paths),
            "--root",
            str(PROJECT_ROOT),
            "--format",
            fmt,
            "--gradebook",
            str(cwd / "gb.sqlite"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
    )


def filled(notebook, implementations: dict[str, str]):
    """A copy of `notebook` whose exercise cells hold the given code."""
    notebook = copy.deepcopy(notebook)
    for name, source in implementations.items():
        cell_for(notebook, "exercise", name).source = source.strip() + "\n"
    return notebook


def save(notebook, path: Path) -> Path:
    nbformat.write(notebook, str(path))
    return path


def _grader_available():
    result = subprocess.run(["coursegen", "grade", "--help"], capture_output=True, text=True)
    return result.returncode == 0


@pytest.fixture(scope="module")
def student_notebook(fixture_outputs):
    assert _grader_available(), "`coursegen grade --help` failed"
    return read_notebook(fixture_outputs["notebooks/en/fixture-lesson.ipynb"])


def _mistake_source(exercise: str, mistake_id: str) -> str:
    from tests.first_course import for_target

    (mistake,) = [m for m in for_target(exercise) if m.id == mistake_id]
    return mistake.source, mistake.hint["en"]


def _damaged(notebook):
    """Cells deleted, added and reordered; outputs left in; magics, shell lines, input(), sleep."""
    notebook = filled(
        notebook,
        {
            "apply_rope": "%pip install numpy\n!ls -la\n" + ALTERNATIVES["apply_rope"],
        },
    )
    cells = notebook.cells
    # count_parameters: its exercise cell is deleted and nothing defines it any more.
    cells.remove(cell_for(notebook, "exercise", "count_parameters"))
    # TiedLM: the tagged cell is deleted; the student wrote it in a new cell without metadata.
    cells.remove(cell_for(notebook, "exercise", "TiedLM"))
    cells.append(nbformat.v4.new_code_cell(ALTERNATIVES["TiedLM"]))
    # apply_rope: moved to the top, with outputs left in.
    rope = cell_for(notebook, "exercise", "apply_rope")
    rope.outputs = [nbformat.v4.new_output("stream", name="stdout", text="some output\n")]
    rope.execution_count = 7
    cells.remove(rope)
    cells.insert(1, rope)
    # Cells that would block or loop forever if the grader ran them.
    cells.insert(2, nbformat.v4.new_code_cell("name = input('your name? ')\nprint(name)"))
    cells.append(nbformat.v4.new_code_cell("import time\nwhile True:\n    time.sleep(1)"))
    cells.append(nbformat.v4.new_markdown_cell("My notes."))
    return notebook


def _malformed(folder: Path) -> dict[str, Path]:
    files = {}
    files["not-json"] = folder / "not-json.ipynb"
    files["not-json"].write_text("this is not JSON {", encoding="utf-8")
    files["json-not-notebook"] = folder / "json-not-notebook.ipynb"
    files["json-not-notebook"].write_text(json.dumps({"hello": "world"}), encoding="utf-8")
    files["nbformat-3"] = folder / "nbformat-3.ipynb"
    files["nbformat-3"].write_text(
        json.dumps(
            {
                "nbformat": 3,
                "nbformat_minor": 0,
                "metadata": {"name": ""},
                "worksheets": [
                    {
                        "cells": [
                            {
                                "cell_type": "code",
                                "input": "def apply_rope(x):\n    return x",
                                "language": "python",
                                "outputs": [],
                            }
                        ],
                        "metadata": {},
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    files["huge"] = folder / "huge.ipynb"
    big = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("def apply_rope(x, positions=None, base=10000.0):\n    return x")]
    )
    big.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * (100 * 1024 * 1024))]
    nbformat.write(big, str(files["huge"]))
    files["no-exercise-cells"] = folder / "no-exercise-cells.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_markdown_cell("# Nothing here"), nbformat.v4.new_code_cell("print(1 + 1)")]
        ),
        str(files["no-exercise-cells"]),
    )
    return files


@pytest.fixture(scope="module")
def batch(student_notebook, tmp_path_factory):
    """Grade every submission below in one `coursegen grade` call; results by submission stem."""
    folder = tmp_path_factory.mktemp("submissions")
    mistake_source, _ = _mistake_source("apply_rope", MISTAKE_ID)
    paths = [
        save(
            filled(student_notebook, {**{n: ALTERNATIVES[n] for n in FIXTURE_EXERCISES}, "apply_rope": mistake_source}),
            folder / "mistake.ipynb",
        ),
        save(_damaged(student_notebook), folder / "damaged.ipynb"),
        *_malformed(folder).values(),
    ]
    for lesson_id, notebook in _course_student_notebooks(tmp_path_factory).items():
        names = notebook.metadata["coursegen"]["exercises"]
        paths.append(save(filled(notebook, {n: ALTERNATIVES[n] for n in names}), folder / f"course-{lesson_id}.ipynb"))
    result = grade(*paths, cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    reports = json.loads(result.stdout)
    return {Path(report["submission"]).stem: report for report in reports}


def _course_student_notebooks(tmp_path_factory) -> dict:
    from coursegen.loader import load_course

    loaded = load_course(PROJECT_ROOT)
    outputs = render_notebooks(loaded, languages=("en",), cache_dir=tmp_path_factory.mktemp("course-cache"))
    return {path.split("/")[-1].removesuffix(".ipynb"): read_notebook(data) for path, data in outputs.items()}


def _scores_by_exercise(report) -> dict[str, tuple[float, float]]:
    totals: dict[str, list[float]] = {}
    for test in report["tests"]:
        score, maximum = totals.setdefault(test["exercise"], [0.0, 0.0])
        totals[test["exercise"]] = [score + test["score"], maximum + test["max_score"]]
    return {name: (score, maximum) for name, (score, maximum) in totals.items()}


def test_correct_implementations_written_differently_get_full_marks(student_notebook, tmp_path):
    path = save(filled(student_notebook, {n: ALTERNATIVES[n] for n in FIXTURE_EXERCISES}), tmp_path / "full.ipynb")
    result = grade(path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["max_score"] > 0
    assert report["score"] == report["max_score"], [t for t in report["tests"] if t["status"] != "passed"]
    assert set(_scores_by_exercise(report)) == set(FIXTURE_EXERCISES)


def test_every_course_lesson_filled_with_correct_alternatives_gets_full_marks(batch):
    course = {stem: report for stem, report in batch.items() if stem.startswith("course-")}
    assert course, "no submission of the project's course lessons was graded"
    for stem, report in course.items():
        assert report["max_score"] > 0, stem
        assert report["score"] == report["max_score"], (stem, [t for t in report["tests"] if t["status"] != "passed"])


def test_a_catalogued_mistake_shows_its_hint(batch):
    _, hint = _mistake_source("apply_rope", MISTAKE_ID)
    report = batch["mistake"]
    rope_outputs = " ".join(t["output"] for t in report["tests"] if t["exercise"] == "apply_rope")
    assert hint in rope_outputs
    scores = _scores_by_exercise(report)
    assert scores["apply_rope"][0] < scores["apply_rope"][1]
    assert scores["TiedLM"][0] == scores["TiedLM"][1]


def test_a_damaged_notebook_is_graded_on_what_is_there(batch):
    scores = _scores_by_exercise(batch["damaged"])
    assert scores["apply_rope"][0] == scores["apply_rope"][1] > 0  # moved, with magics and outputs
    assert scores["TiedLM"][0] == scores["TiedLM"][1] > 0  # untagged cell, found by its definition


def test_a_damaged_notebook_reports_the_exercise_it_could_not_find(batch):
    report = batch["damaged"]
    assert any("count_parameters" in problem for problem in report["problems"]), report["problems"]
    score, maximum = _scores_by_exercise(report)["count_parameters"]
    assert score == 0 < maximum


@pytest.mark.parametrize(
    "stem, keyword",
    [
        ("not-json", "JSON"),
        ("json-not-notebook", "notebook"),
        ("nbformat-3", "3"),
        ("huge", "MB"),
        ("no-exercise-cells", "exercise"),
    ],
)
def test_a_malformed_submission_gets_a_one_line_reason_and_a_zero(batch, stem, keyword):
    report = batch[stem]
    assert report["score"] == 0
    assert report["tests"] == [] or all(t["score"] == 0 for t in report["tests"])
    assert len(report["problems"]) == 1
    (reason,) = report["problems"]
    assert reason and "\n" not in reason and "Traceback" not in reason
    assert keyword in reason
