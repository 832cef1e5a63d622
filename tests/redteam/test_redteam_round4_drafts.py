"""Red team, round 4 (issue 35), item 6: a mistake draft is written from trusted parts. The
draft `coursegen mistakes propose` writes holds the student's definition rewritten from its
syntax tree and imports written by the engine (one per name the definition uses, of the
standard library or the course's requirements), never a line of the student's file; it says it
must be read first and does not run as it is."""

from __future__ import annotations

import ast
import subprocess
import sys
import types
from pathlib import Path

from coursegen.mistake_drafts import _definition, draft_text

SMUGGLER = """\
import torch; open({mark!r}, "w").write("import line")
import os, torch as t  ; os.system("touch {mark}-2")
from math import sqrt, pi as PI; __import__("os").system("touch {mark}-3")
from .local import helper
from os.path import *
import evilpkg
def _helper(): pass

@some_decorator(open({mark!r} + "-4", "w"))
def merge_pair(ids, pair, new_id):  # a comment \"\"\" with quotes
    out = [sqrt(i) * PI for i in ids]
    return t.tensor(out) + torch.zeros(1) + evilpkg.x + os.sep
"""


def proposal() -> types.SimpleNamespace:
    return types.SimpleNamespace(
        exercise="merge_pair",
        students=["ann", "bob"],
        failing_checks=["test_merge_pair_x"],
        representative={"student": "ann", "submission": "ann/tokens.py"},
    )


def test_a_smuggled_import_line_never_reaches_the_draft(tmp_path):
    mark = str(tmp_path / "pwned")
    code = _definition(SMUGGLER.format(mark=mark), "merge_pair", frozenset({"torch"}))
    draft = draft_text(proposal(), 1, code, "", {"merge_pair": "tokens"})
    assert "system" not in draft and "open(" not in draft and mark not in draft
    assert "evilpkg" not in draft.split("def merge_pair")[0]  # not a course requirement: no import
    assert "some_decorator" not in draft and "a comment" not in draft
    allowed_imports = {
        "import torch",
        "import torch as t",
        "import os",
        "from math import sqrt",
        "from math import pi as PI",
        "from __future__ import annotations",
        "from grader.contract import mistake",
    }
    tree = ast.parse(draft)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            assert ast.unparse(node) in allowed_imports
        else:
            assert isinstance(node, (ast.Expr, ast.Raise, ast.FunctionDef)), ast.unparse(node)
            if isinstance(node, ast.Expr):
                assert isinstance(node.value, ast.Constant)  # the docstring
    assert "READ EVERY LINE" in draft
    # run as it is, the draft stops before the definition and leaves nothing behind
    path = tmp_path / "draft.py"
    path.write_text(draft, encoding="utf-8")
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode != 0 and "read it" in run.stderr
    assert not list(Path(tmp_path).glob("pwned*"))
