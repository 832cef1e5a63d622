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
