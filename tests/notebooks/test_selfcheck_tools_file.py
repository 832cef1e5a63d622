"""The self-check tools cell comes from a real file, coursegen/selfcheck_tools.py: each library's
region reaches the cell only for a course that requires that library, and no marker line, nor the
file's own docstring, ever does."""

from __future__ import annotations

import pytest

from coursegen.selfcheck_code import tools_cell


@pytest.mark.parametrize("requires", [[], ["torch>=2.2"], ["numpy"], ["numpy", "torch"]])
def test_the_cell_keeps_the_regions_of_the_required_libraries_only(requires):
    cell = tools_cell("en", requires)
    compile(cell, "<tools cell>", "exec")
    assert "# cell:" not in cell and "shipped as a real file" not in cell
    assert cell.count("_MESSAGES = {") == 1 and "_MESSAGES: dict" not in cell
    for library, branch in (("torch", "torch.Tensor):"), ("numpy", "numpy.ndarray):")):
        required = any(r.startswith(library) for r in requires)
        assert (f"\nimport {library}\n" in cell) == required
        assert (branch in cell) == required


def test_submit_reaches_the_cell_only_with_a_service_target():
    from coursegen.selfcheck_code import SubmitTarget

    assert "def submit(" not in tools_cell("en", ["numpy"]) and "_SUBMISSION" not in tools_cell("en", ["numpy"])
    target = SubmitTarget(
        "https://grader.example.edu/", "quadrature.ipynb", {"hw1": ["quadrature.ipynb", "running.ipynb"]}
    )
    for lang, prompt in (("en", "Your grading token"), ("zh", "你的评分令牌")):
        cell = tools_cell(lang, ["numpy"], target)
        namespace: dict = {}
        exec(compile(cell, "<tools cell>", "exec"), namespace)  # plain standard library: no engine import
        assert callable(namespace["submit"]) and prompt in namespace["_MESSAGES"]["submit_token_prompt"]
        assert namespace["_SUBMISSION"] == {
            "url": "https://grader.example.edu/",
            "lang": lang,
            "notebook": "quadrature.ipynb",
            "assignments": {"hw1": ["quadrature.ipynb", "running.ipynb"]},
        }
        assert "coursegen" not in "".join(line for line in cell.splitlines() if line.startswith(("import", "from")))


def test_submit_names_the_assignment_to_choose_and_never_guesses(capsys):
    from coursegen.selfcheck_code import SubmitTarget

    target = SubmitTarget("http://127.0.0.1:9/", "a.ipynb", {"hw1": ["a.ipynb"], "exam": ["a.ipynb", "b.ipynb"]})
    namespace: dict = {}
    exec(compile(tools_cell("en", [], target), "<tools cell>", "exec"), namespace)
    namespace["submit"]()
    assert "several assignments (hw1, exam)" in capsys.readouterr().out
    namespace["submit"]("hw2")
    assert "No assignment 'hw2'" in capsys.readouterr().out
    namespace["submit"]("hw1", path="/nonexistent/a.ipynb")
    assert "Could not find this notebook's file" in capsys.readouterr().out
