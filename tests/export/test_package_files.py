"""Which grader modules a grading package ships: never the Dask cluster code (a Gradescope
container or a student's Classroom runner grades one submission in place), and an export stops
when a shipped module would import such a module as it loads."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from coursegen.exports import classroom
from coursegen.exports.files import ExportError
from coursegen.exports.gradescope import export_gradescope
from coursegen.exports import package
from coursegen.exports.package import ENGINE_GRADER, NOT_SHIPPED

from .helpers import LESSON_ID, make_course


def test_the_cluster_module_is_in_the_engine_but_in_neither_export(classroom_tree, gradescope_zip):
    assert "grader/scaleout/cluster.py" in NOT_SHIPPED
    for relative in NOT_SHIPPED:
        assert (ENGINE_GRADER.parent / relative).is_file()  # the exports leave it out, it is not just missing
        assert not (classroom_tree / ".autograder" / relative).exists()
    with zipfile.ZipFile(gradescope_zip) as archive:
        names = set(archive.namelist())
    assert "package/grader/scaleout/batch.py" in names
    assert not {f"package/{relative}" for relative in NOT_SHIPPED} & names


def test_the_shipped_dependencies_do_not_include_the_cluster_extra(classroom_tree, gradescope_zip):
    with zipfile.ZipFile(gradescope_zip) as archive:
        gradescope = archive.read("package/pyproject.toml").decode()
    for pyproject in (gradescope, (classroom_tree / ".autograder" / "pyproject.toml").read_text()):
        assert "dask" not in pyproject and "distributed" not in pyproject


@pytest.mark.parametrize(
    "statement",
    [
        "from grader.scaleout.cluster import grade_on_cluster",
        "from grader.scaleout import cluster",
        "from ..scaleout.cluster import grade_on_cluster",
        "from ..scaleout import cluster",
        "import grader.scaleout.cluster",
    ],
)
def test_a_module_level_import_of_the_cluster_module_stops_the_export(tmp_path, statement, monkeypatch):
    root = make_course(tmp_path / "course", ("encode",))
    engine = tmp_path / "engine" / "grader"  # the engine's grader, which the exports ship, edited
    shutil.copytree(ENGINE_GRADER, engine, ignore=shutil.ignore_patterns("__pycache__", "checks"))
    monkeypatch.setattr(package, "ENGINE_GRADER", engine)
    submission = engine / "reading" / "submission.py"
    lines = submission.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(("import ", "from ")) and "__future__" not in line)
    submission.write_text("\n".join([*lines[:at], statement, *lines[at:]]) + "\n", encoding="utf-8")
    line = at + 1
    for export, out in (
        (lambda out: classroom.export_classroom(root, LESSON_ID, out), tmp_path / "starter"),
        (lambda out: export_gradescope(root, LESSON_ID, out), tmp_path / "autograder.zip"),
    ):
        with pytest.raises(
            ExportError,
            match=rf"grader/reading/submission\.py:{line}: imports `grader\.scaleout\.cluster` at module level",
        ):
            export(out)
        assert not out.exists()


def test_an_import_of_the_cluster_module_inside_a_function_is_allowed(classroom_tree):
    # grader/scaleout/executors.py imports it only in the Dask executor (--scheduler), which a grading
    # package never takes
    executors = (ENGINE_GRADER / "scaleout" / "executors.py").read_text(encoding="utf-8")
    assert "from grader.scaleout.cluster import" in executors
    shipped = classroom_tree / ".autograder" / "grader" / "scaleout" / "executors.py"
    assert shipped.read_text(encoding="utf-8") == executors
