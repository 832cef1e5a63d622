"""grader/reading/submission.py: reading .py and .ipynb submissions without running them."""

import json
from pathlib import Path

import pytest

from tests.first_course import COURSE, exercises_in
from grader.reading.submission import load_submission
from grader.reading.untrusted_input import MAX_BYTES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "submissions"


def notebook(cells, nbformat=4) -> str:
    return json.dumps({"nbformat": nbformat, "nbformat_minor": 5, "metadata": {}, "cells": cells})


def module_exercises(module: str) -> tuple[str, ...]:
    """Every exercise of `module`, as the registry lists them: a .py file is graded on all of them."""
    return tuple(e.name for e in exercises_in(module))


def code_cell(source, role=None, exercise=None) -> dict:
    meta = {}
    if role:
        meta["coursegen"] = {"lesson": "l", "role": role, **({"exercise": exercise} if exercise else {})}
    return {"cell_type": "code", "source": source, "metadata": meta, "outputs": [], "execution_count": None}


def test_py_file_is_graded_as_the_module_named_by_its_stem():
    sub = load_submission(FIXTURES / "correct" / "rope.py", COURSE)
    assert sub.kind == "py" and sub.exercises == module_exercises("rope") and sub.fatal is None
    assert "apply_rope" in sub.exercises


def test_renamed_py_file_is_matched_by_the_names_it_defines():
    sub = load_submission(FIXTURES / "renamed" / "smith_123_rope-1.py", COURSE)
    assert sub.exercises == module_exercises("rope") and "apply_rope" in sub.names


def test_module_option_overrides_the_stem(tmp_path):
    path = tmp_path / "homework.py"
    path.write_text("def encode(tokens, vocab, unk_token='<UNK>'):\n    return []\n")
    assert load_submission(path, COURSE, module="tokens").exercises == module_exercises("tokens")
    assert {"encode", "pad_batch"} <= set(module_exercises("tokens"))


def test_unknown_module_option_is_a_value_error(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("")
    with pytest.raises(ValueError, match="unknown exercise module"):
        load_submission(path, COURSE, module="nope")


def test_syntax_error_is_fatal_with_a_one_line_reason_and_keeps_the_module():
    sub = load_submission(FIXTURES / "syntax_error" / "rope.py", COURSE)
    assert sub.fatal and "\n" not in str(sub.fatal) and "line" in str(sub.fatal)
    assert sub.exercises == module_exercises("rope")


def test_file_that_is_not_utf8_is_fatal(tmp_path):
    path = tmp_path / "rope.py"
    path.write_bytes(b"def apply_rope(x):\n    return x  # \xff\xfe\n")
    sub = load_submission(path, COURSE)
    assert "not UTF-8" in str(sub.fatal) and "0xff" in str(sub.fatal)


def test_file_over_the_size_limit_is_fatal(tmp_path):
    path = tmp_path / "rope.py"
    path.write_bytes(b"#" * (MAX_BYTES + 1))
    assert "limit is 20 MB" in str(load_submission(path, COURSE).fatal)


def test_file_defining_no_exercise_is_fatal(tmp_path):
    path = tmp_path / "notes.py"
    path.write_text("x = 1\n")
    assert "defines none of the exercises" in str(load_submission(path, COURSE).fatal)


def test_other_file_types_are_fatal(tmp_path):
    path = tmp_path / "rope.zip"
    path.write_bytes(b"PK")
    assert "not a .py or .ipynb" in str(load_submission(path, COURSE).fatal)


def test_loading_never_executes_the_submission(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "rope.py"
    path.write_text(
        f"open({str(marker)!r}, 'w').close()\ndef apply_rope(x, positions=None, base=10000.0):\n    return x\n"
    )
    load_submission(path, COURSE)
    assert not marker.exists()


def test_sha256_is_of_the_submitted_bytes(tmp_path):
    import hashlib

    path = tmp_path / "rope.py"
    path.write_bytes(b"def apply_rope(x, positions=None, base=10000.0):\n    return x\n")
    assert load_submission(path, COURSE).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_notebook_runs_setup_and_exercise_cells_in_order_without_other_cells(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell("input('name?')\n", role="selfcheck"),
                code_cell(
                    "def apply_rope(x, positions=None, base=10000.0):\n    return x\n",
                    role="exercise",
                    exercise="apply_rope",
                ),
                {"cell_type": "markdown", "source": "text", "metadata": {}},
            ]
        )
    )
    sub = load_submission(path, COURSE)
    assert sub.kind == "ipynb" and sub.exercises == ("apply_rope",) and sub.fatal is None
    assert "input(" not in sub.code
    assert sub.code.index("import torch") < sub.code.index("def apply_rope")


def test_notebook_shell_and_magic_lines_become_pass(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell(["import torch\n", "!pip install numpy\n", "%matplotlib inline\n"], role="setup"),
                code_cell(
                    "def apply_rope(x, positions=None, base=10000.0):\n    if True:\n        %time y = 1\n"
                    "    get_ipython().system('ls')\n    files = !ls\n    return x\n",
                    role="exercise",
                    exercise="apply_rope",
                ),
            ]
        )
    )
    sub = load_submission(path, COURSE)
    import ast

    ast.parse(sub.code)  # still valid Python
    assert "!pip" not in sub.code.replace("# removed by the grader: !pip", "")
    assert sub.code.count("pass  # removed by the grader") == 5


def test_notebook_without_tags_falls_back_to_cells_defining_the_names(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\nimport time\n"),
                code_cell("def apply_rope(x, positions=None, base=10000.0):\n    return x\n\ntime.sleep(100)\n"),
            ]
        )
    )
    sub = load_submission(path, COURSE)
    assert sub.exercises == ("apply_rope",)
    assert "import torch" in sub.code and "def apply_rope" in sub.code
    assert "sleep" not in sub.code


def test_notebook_with_duplicated_tag_falls_back_to_defining_cells(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell("# nothing here\n", role="exercise", exercise="apply_rope"),
                code_cell(
                    "def apply_rope(x, positions=None, base=10000.0):\n    return x\n",
                    role="exercise",
                    exercise="apply_rope",
                ),
            ]
        )
    )
    sub = load_submission(path, COURSE)
    assert "def apply_rope" in sub.code and "# nothing here" not in sub.code


def test_notebook_exercise_without_any_defining_cell_is_a_problem(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell(
                    "def encode(tokens, vocab, unk_token='<UNK>'):\n    return []\n", role="exercise", exercise="encode"
                ),
                code_cell("# TODO\n", role="exercise", exercise="pad_batch"),
                code_cell("# TODO too\n", role="exercise", exercise="pad_batch"),
            ]
        )
    )
    sub = load_submission(path, COURSE)
    assert sub.exercises == ("encode", "pad_batch")
    assert any("pad_batch" in str(p) for p in sub.problems)


def test_notebook_cell_with_a_syntax_error_is_dropped_and_named(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell(
                    "def encode(tokens, vocab, unk_token='<UNK>'):\n    return [\n", role="exercise", exercise="encode"
                ),
                code_cell(
                    "def pad_batch(sequences, pad_id=0):\n    return None\n", role="exercise", exercise="pad_batch"
                ),
            ]
        )
    )
    sub = load_submission(path, COURSE)
    assert sub.fatal is None and "def pad_batch" in sub.code and "def encode" not in sub.code
    assert any("cell 2" in str(p) and "syntax error" in str(p) for p in sub.problems)


@pytest.mark.parametrize(
    "content, reason",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a Jupyter notebook"),
        ('{"nbformat": 4, "metadata": {}}', "not a Jupyter notebook"),
        (notebook([], nbformat=3), "format 3 is not supported"),
    ],
)
def test_malformed_notebooks_are_fatal_with_one_line(tmp_path, content, reason):
    path = tmp_path / "lesson.ipynb"
    path.write_text(content)
    sub = load_submission(path, COURSE)
    assert reason in str(sub.fatal) and "\n" not in str(sub.fatal)


def test_notebook_future_imports_move_to_the_top(tmp_path):
    path = tmp_path / "lesson.ipynb"
    path.write_text(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell(
                    "from __future__ import annotations\n\ndef encode(tokens, vocab, unk_token='<UNK>'):\n    return []\n",
                    role="exercise",
                    exercise="encode",
                ),
            ]
        )
    )
    code = load_submission(path, COURSE).code
    compile(code, "lesson.ipynb", "exec")
    assert code.startswith("from __future__ import annotations\n")


def test_notebook_exercise_listed_in_metadata_but_deleted_is_a_problem(tmp_path):
    data = json.loads(
        notebook(
            [
                code_cell("import torch\n", role="setup"),
                code_cell(
                    "def encode(tokens, vocab, unk_token='<UNK>'):\n    return []\n", role="exercise", exercise="encode"
                ),
            ]
        )
    )
    data["metadata"]["coursegen"] = {"lesson": "l", "exercises": ["encode", "pad_batch"]}
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps(data))
    sub = load_submission(path, COURSE)
    assert sub.exercises == ("encode", "pad_batch")
    assert [str(p) for p in sub.problems] == ["no cell defines pad_batch"]
