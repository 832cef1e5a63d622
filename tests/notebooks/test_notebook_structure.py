"""What a built notebook contains, how its cells are marked, and that it is deterministic."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from types import SimpleNamespace

import nbformat
import pytest

from coursegen.errors import ContentErrors
from coursegen.loader import load_course
from coursegen.notebooks import render_notebooks, write_notebook_folder, write_notebooks

from .nbhelpers import FIXTURE_COURSE, cell_for, cells_with_role, imported_roots, read_notebook
from tests.nonempty import nonempty

STUDENT_EN = "notebooks/en/fixture-lesson.ipynb"
SOLUTION_EN = "notebooks/en/fixture-lesson-solution.ipynb"
EXERCISES = ("count_parameters", "TiedLM", "apply_rope")


@pytest.fixture
def student(fixture_outputs):
    return read_notebook(fixture_outputs[STUDENT_EN])


@pytest.fixture
def instructor(fixture_outputs):
    return read_notebook(fixture_outputs[SOLUTION_EN])


def test_one_student_and_one_instructor_notebook_per_language_for_lessons_with_exercises(fixture_outputs):
    assert sorted(fixture_outputs) == [
        "notebooks/en/fixture-lesson-solution.ipynb",
        "notebooks/en/fixture-lesson.ipynb",
        "notebooks/zh/fixture-lesson-solution.ipynb",
        "notebooks/zh/fixture-lesson.ipynb",
    ]


def test_notebooks_are_nbformat_4_current_minor_and_valid(fixture_outputs):
    for data in nonempty(fixture_outputs.values()):
        notebook = read_notebook(data)
        assert (notebook.nbformat, notebook.nbformat_minor) == (4, nbformat.current_nbformat_minor)
        nbformat.validate(notebook)


def test_cell_ids_are_unique_and_derived_from_lesson_role_and_exercise(student):
    ids = [cell.id for cell in student.cells]
    assert len(ids) == len(set(ids))
    assert cell_for(student, "exercise", "apply_rope").id == "fixture-lesson--exercise-apply_rope"
    assert cell_for(student, "selfcheck", "TiedLM").id == "fixture-lesson--selfcheck-TiedLM"


def test_rendering_twice_gives_identical_bytes_with_or_without_the_cache(fixture_course, fixture_outputs, tmp_path):
    fresh = render_notebooks(fixture_course, solutions=True, cache_dir=tmp_path / "fresh")
    cached = render_notebooks(fixture_course, solutions=True, cache_dir=tmp_path / "fresh")
    assert fresh == fixture_outputs
    assert cached == fixture_outputs


def test_notebook_opens_with_title_summary_and_objectives(student, fixture_course):
    lesson = fixture_course.lesson("fixture-lesson")
    first = student.cells[0]
    assert first.cell_type == "markdown"
    assert first.source.startswith(f"# {lesson.title.en}\n")
    for objective in lesson.objectives:
        assert f"- {objective.en}" in first.source


def test_explanations_and_formulas_are_markdown_with_math(student):
    section = next(cell for cell in student.cells if cell.id == "fixture-lesson--text-section-rotation")
    assert section.cell_type == "markdown"
    assert "$$a = p \\cdot \\text{base}^{-2i/d}$$" in section.source
    assert "> **Tip.** The rotation keeps lengths." in section.source


def test_internal_links_point_at_the_site_pages(student):
    section = next(cell for cell in student.cells if cell.id == "fixture-lesson--text-section-rotation")
    assert "](../../en/fixture-reading.html)" in section.source
    assert "lesson:" not in section.source


def test_chinese_notebook_is_written_in_chinese(fixture_outputs):
    notebook = read_notebook(fixture_outputs["notebooks/zh/fixture-lesson.ipynb"])
    assert notebook.cells[0].source.startswith("# 共享输出头与旋转\n")
    assert "实现 `apply_rope" in cell_for(notebook, "text", "apply_rope").source


def test_setup_cell_imports_only_torch_and_the_standard_library(student):
    (setup,) = cells_with_role(student, "setup")
    roots = imported_roots(setup.source)
    assert "torch" in roots
    assert all(root == "torch" or root in sys.stdlib_module_names for root in roots)


def test_setup_cell_has_no_future_import_that_would_break_a_reordered_notebook(student):
    (setup,) = cells_with_role(student, "setup")
    assert "__future__" not in setup.source


def test_no_code_cell_imports_anything_but_torch_and_the_standard_library(fixture_outputs):
    for data in nonempty(fixture_outputs.values()):
        for cell in nonempty(read_notebook(data).cells):
            if cell.cell_type == "code":
                roots = imported_roots(cell.source)
                assert all(root == "torch" or root in sys.stdlib_module_names for root in roots), (cell.id, roots)


def test_each_exercise_has_task_stub_and_selfcheck_in_that_order(student):
    order = [(cell.metadata["coursegen"]["role"], cell.metadata["coursegen"]["exercise"]) for cell in student.cells]
    for name in EXERCISES:
        start = order.index(("text", name))
        assert order[start : start + 3] == [("text", name), ("exercise", name), ("selfcheck", name)]


def test_task_statement_comes_from_the_lesson(student, fixture_course):
    lesson = fixture_course.lesson("fixture-lesson")
    for exercise in nonempty(lesson.exercises):
        assert exercise.statement.en.strip() in cell_for(student, "text", exercise.name).source


def test_stub_cell_is_the_stub_module_definition_verbatim(student):
    stub_module = (FIXTURE_COURSE / "exercises" / "rope.py").read_text()
    cell = cell_for(student, "exercise", "apply_rope")
    assert cell.source.strip() in stub_module
    tree = ast.parse(cell.source)
    (function,) = tree.body
    assert function.name == "apply_rope"
    assert [arg.arg for arg in function.args.args] == ["x", "positions", "base"]
    assert ast.get_docstring(function)
    assert "raise NotImplementedError" in cell.source


def test_instructor_cell_holds_the_reference_with_its_helpers_and_no_markers(instructor):
    cell = cell_for(instructor, "exercise", "count_parameters")
    assert "def _table_size(" in cell.source
    assert "return _table_size(vocab_size, d_model) * (1 if tied else 2)" in cell.source
    assert "BEGIN SOLUTION" not in cell.source and "END SOLUTION" not in cell.source


def test_student_notebook_contains_no_line_of_a_reference_body(fixture_outputs):
    text = fixture_outputs[STUDENT_EN].decode()
    for module in ("rope", "lm_head"):
        source = (FIXTURE_COURSE / "solutions" / f"{module}.py").read_text()
        inside = False
        for line in nonempty(source.splitlines()):
            if "# END SOLUTION" in line:
                inside = False
            if inside and line.strip():
                assert line.strip() not in text, line
            if "# BEGIN SOLUTION" in line:
                inside = True


def test_cells_carry_the_coursegen_metadata_contract(student):
    for cell in nonempty(student.cells):
        meta = cell.metadata["coursegen"]
        assert set(meta) == {"lesson", "role", "exercise"}
        assert meta["lesson"] == "fixture-lesson"
        assert meta["role"] in {"text", "setup", "exercise", "selfcheck"}


def test_exercise_cells_are_tagged_and_editable_every_other_cell_is_locked(student):
    for cell in nonempty(student.cells):
        if cell.metadata["coursegen"]["role"] == "exercise":
            assert cell.metadata["tags"] == ["exercise"]
            assert cell.metadata.get("editable", True) is True
        else:
            assert "exercise" not in cell.metadata.get("tags", [])
            assert cell.metadata["editable"] is False
            assert cell.metadata["deletable"] is False


def test_notebook_metadata_names_course_lesson_language_and_variant(student, instructor):
    assert student.metadata["coursegen"] == {
        "format": 1,
        "course": "fixture-course",
        "lesson": "fixture-lesson",
        "language": "en",
        "variant": "student",
        "exercises": ["count_parameters", "TiedLM", "apply_rope"],
    }
    assert instructor.metadata["coursegen"]["variant"] == "solution"
    assert student.metadata["kernelspec"]["name"] == "python3"


def test_notebooks_have_no_outputs_or_execution_counts(fixture_outputs):
    for data in nonempty(fixture_outputs.values()):
        for cell in nonempty(read_notebook(data).cells):
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None


def test_build_writer_publishes_student_notebooks_only_by_default(fixture_course, tmp_path):
    write_notebooks(fixture_course, tmp_path, SimpleNamespace(cache_dir=tmp_path / "cache"))
    written = sorted(str(path.relative_to(tmp_path)) for path in (tmp_path / "notebooks").rglob("*.ipynb"))
    assert written == ["notebooks/en/fixture-lesson.ipynb", "notebooks/zh/fixture-lesson.ipynb"]


def test_build_writer_adds_instructor_notebooks_when_the_build_asks_for_solutions(fixture_course, tmp_path):
    write_notebooks(fixture_course, tmp_path, SimpleNamespace(cache_dir=tmp_path / "cache", with_solutions=True))
    assert (tmp_path / "notebooks" / "zh" / "fixture-lesson-solution.ipynb").is_file()


def test_instructor_output_goes_to_its_own_folder(fixture_course, tmp_path):
    written = write_notebook_folder(
        fixture_course, tmp_path / "instructor", students=False, solutions=True, cache_dir=tmp_path / "cache"
    )
    assert sorted(path.name for path in written) == ["fixture-lesson-solution.ipynb"] * 2
    assert (tmp_path / "instructor" / "en" / "fixture-lesson-solution.ipynb").is_file()


def _copy_course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(FIXTURE_COURSE, root)
    return root


def test_missing_stub_definition_is_a_content_error_naming_the_file(tmp_path):
    root = _copy_course(tmp_path)
    stub = root / "exercises" / "rope.py"
    stub.write_text(stub.read_text().replace("def apply_rope(", "def apply_rotary("))
    with pytest.raises(ContentErrors) as raised:
        render_notebooks(load_course(root), cache_dir=tmp_path / "cache")
    assert str(raised.value).startswith("exercises/rope.py: ") and "'apply_rope'" in str(raised.value)


def test_third_party_import_in_an_exercise_module_is_a_content_error_with_its_line(tmp_path):
    root = _copy_course(tmp_path)
    stub = root / "exercises" / "rope.py"
    text = stub.read_text()
    assert "import math\n" in text
    stub.write_text(text.replace("import math\n", "import math\nimport numpy\n"))
    line = text[: text.index("import math\n")].count("\n") + 2  # the line after `import math`
    with pytest.raises(ContentErrors) as raised:
        render_notebooks(load_course(root), cache_dir=tmp_path / "cache")
    assert str(raised.value).startswith(f"exercises/rope.py:{line}:1: ") and "'numpy'" in str(raised.value)


def test_a_failing_reference_is_a_content_error(tmp_path):
    root = _copy_course(tmp_path)
    reference = root / "solutions" / "lm_head.py"
    reference.write_text(reference.read_text().replace("return _table_size(", "return 1 // 0 + _table_size("))
    with pytest.raises(ContentErrors) as raised:
        render_notebooks(load_course(root), cache_dir=tmp_path / "cache")
    assert "count_parameters failed on self-check case 1: ZeroDivisionError" in str(raised.value)


def test_changing_a_reference_recomputes_its_expected_values(tmp_path):
    root = _copy_course(tmp_path)
    before = render_notebooks(load_course(root), cache_dir=tmp_path / "cache")
    reference = root / "solutions" / "lm_head.py"
    reference.write_text(reference.read_text().replace("(1 if tied else 2)", "(1 if tied else 3)"))
    after = render_notebooks(load_course(root), cache_dir=tmp_path / "cache")
    assert "_count_parameters_expected_1 = 3200" in before[STUDENT_EN].decode()
    assert "_count_parameters_expected_1 = 4800" in after[STUDENT_EN].decode()


def test_a_no_change_rebuild_does_not_import_torch(fixture_course, tmp_path):
    render_notebooks(fixture_course, solutions=True, cache_dir=tmp_path / "cache")  # fills the cache
    script = (
        "import sys\n"
        "from coursegen.loader import load_course\n"
        "from coursegen.notebooks import render_notebooks\n"
        f"render_notebooks(load_course({str(FIXTURE_COURSE)!r}), solutions=True, cache_dir={str(tmp_path / 'cache')!r})\n"
        "print('torch' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_no_grader_check_name_or_code_appears_in_a_notebook(fixture_outputs):
    from .nbhelpers import PROJECT_ROOT

    check_names = set()
    for path in (PROJECT_ROOT / "grader" / "checks").glob("test_*.py"):
        check_names |= {
            node.name
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    assert check_names, "grader/checks defines no check"
    for data in nonempty(fixture_outputs.values()):
        text = data.decode()
        assert not [name for name in check_names if name in text]
