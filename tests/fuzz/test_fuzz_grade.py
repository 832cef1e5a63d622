"""Fuzzing the whole grading command: random bytes, random Python and random notebooks, graded
as one batch through `coursegen grade`, always give exit status 0 and a valid report naming
every student."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

PYTHON_LINES = st.sampled_from(
    [
        "import torch",
        "import os",
        "def apply_rope(x, positions=None, base=10000.0):\n    return x",
        "def apply_rope(x, positions=None, base=10000.0):\n    raise ValueError('no')",
        "apply_rope = 3",
        "class apply_rope:\n    pass",
        "print('10 passed')",
        "import sys\nsys.exit(0)",
        "x = (",
        "%matplotlib inline",
        "!pip install torch",
        "def alibi_slopes(n):\n    return [1] * n",
        "raise SystemExit",
        "\t\tindent",
        "def apply_rope(*a, **k):\n    return torch.empty(0)",
        "import numpy as np",
        "'''",
        "# -*- coding: latin-1 -*-",
    ]
)
TEXT = st.text(max_size=60)
CELL = st.fixed_dictionaries(
    {
        "cell_type": st.sampled_from(["code", "markdown", "raw", "garbage"]) | TEXT,
        "source": st.lists(PYTHON_LINES | TEXT, max_size=4) | PYTHON_LINES | st.integers(),
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "tags": st.lists(st.sampled_from(["exercise", "setup", "x"]), max_size=3) | TEXT,
                "coursegen": st.fixed_dictionaries(
                    {},
                    optional={
                        "role": st.sampled_from(["setup", "exercise", "selfcheck", "text"]) | TEXT,
                        "exercise": st.sampled_from(["apply_rope", "alibi_bias", "nope"]),
                        "lesson": TEXT,
                    },
                ),
            },
        ),
    },
    optional={"outputs": st.just([]), "execution_count": st.none() | st.integers()},
)
NOTEBOOK = st.fixed_dictionaries(
    {
        "cells": st.lists(CELL, max_size=5),
        "metadata": st.just({}) | st.dictionaries(TEXT, TEXT, max_size=2),
        "nbformat": st.sampled_from([4, 3, 5, "4"]),
        "nbformat_minor": st.integers(min_value=0, max_value=6),
    }
)
SUBMISSION = st.one_of(
    st.tuples(st.sampled_from(["rope.py", "smith_12_rope-1.py", "x.py"]), st.binary(max_size=200)),
    st.tuples(
        st.sampled_from(["rope.py", "alibi.py", "hw.py"]),
        st.lists(PYTHON_LINES, max_size=6).map(lambda lines: "\n".join(lines).encode()),
    ),
    st.tuples(st.sampled_from(["lesson.ipynb", "rope.ipynb"]), NOTEBOOK.map(lambda nb: json.dumps(nb).encode())),
    st.tuples(st.just("broken.ipynb"), st.binary(max_size=100) | TEXT.map(str.encode)),
)


@settings(
    max_examples=1,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
@given(st.lists(SUBMISSION, min_size=10, max_size=10))
def test_random_batch_always_gives_a_valid_report(tmp_path, submissions):
    work = Path(tempfile.mkdtemp(dir=tmp_path))  # one fresh folder per example
    batch, out = work / "batch", work / "out"
    out.mkdir()
    for index, (name, data) in enumerate(submissions):
        folder = batch / f"student{index:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    report = out / "report.json"
    env = dict(os.environ, COURSEGEN_SANDBOX_LIMITS="call_seconds=2,import_seconds=2,max_restarts=3")
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "coursegen",
            "grade",
            str(batch),
            "--format",
            "json",
            "--output",
            str(report),
            "--gradebook",
            str(out / "gb.sqlite"),
            "--seed",
            "5",
            "--workers",
            "2",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert process.returncode == 0, process.stderr[-3000:]
    data = json.loads(report.read_text())
    assert sorted(entry["student"] for entry in data) == [f"student{i:02d}" for i in range(len(submissions))]
    for entry in data:
        assert 0 <= entry["score"] <= entry["max_score"]
        assert all(test["status"] in ("passed", "failed") for test in entry["tests"])
