"""A failing check's fingerprint (grader/fingerprint.py, for `coursegen mistakes propose`) is made
for every course, and a course without torch never imports it there: plain values are summarised
with Python floats, tensors and numpy arrays only when their library is already imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_fingerprint_of_plain_values_imports_neither_torch_nor_numpy():
    code = (
        "import json, sys\n"
        "from grader.fingerprint import fingerprint\n"
        "print(json.dumps([json.loads(fingerprint('value', [1.5, 2, [3.0]])), 'torch' in sys.modules, 'numpy' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary, torch_imported, numpy_imported = json.loads(done.stdout)
    assert (torch_imported, numpy_imported) == (False, False)
    # 1.5 + 2 + 3.0, sampled in order: the numbers of the value, independent of how they are stored
    assert (
        summary["n"] == 3 and summary["sum"] == 6.5 and summary["abs"] == 6.5 and summary["sample"] == [1.5, 2.0, 3.0]
    )
