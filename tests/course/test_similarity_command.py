"""`coursegen similarity` on what a real batch can hold besides good code: a file that does not
parse, a file changed since it was graded, a student whose file is gone; and the folder and
assignment it refuses. The gradebook is written here (runs recorded as the grader records them),
so no sandbox runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from coursegen.commands.similarity import run_similarity
from grader.reporting.gradebook import Gradebook
from grader.reporting.results import CheckResult, SubmissionResult
from tests.student_code import MERGE_PAIR

ROOT = Path(__file__).resolve().parents[2]

CODE = "import torch\n\n\n" + MERGE_PAIR


def _class(tmp_path: Path, files: dict[str, str], graded: dict[str, str] | None = None) -> Path:
    submissions = tmp_path / "submissions"
    with Gradebook(tmp_path / "gb.sqlite") as book:
        for student, text in files.items():
            (submissions / student).mkdir(parents=True)
            (submissions / student / "tokens.py").write_text(text, encoding="utf-8")
            seen = (graded or {}).get(student, text)
            check = CheckResult("test_merge_pair_x", "merge_pair", 1.0, 1.0, "passed")
            result = SubmissionResult(
                student, f"{student}/tokens.py", hashlib.sha256(seen.encode()).hexdigest(), 1.0, 1.0, [check]
            )
            book.record(result, checks_hash="c", seed=1)
    return submissions


def test_unreadable_changed_and_missing_files_are_noted_not_compared(tmp_path):
    submissions = _class(
        tmp_path,
        {"a": CODE, "b": CODE, "broken": "def merge_pair(:\n", "changed": CODE, "gone": CODE},
        graded={"changed": CODE + "\n# as graded\n"},
    )
    (submissions / "gone" / "tokens.py").unlink()
    assert run_similarity(ROOT, submissions, tmp_path / "gb.sqlite", tmp_path / "out", None) == 0
    data = json.loads((tmp_path / "out" / "similarity.json").read_text(encoding="utf-8"))
    assert set(data["notes"]) == {"broken", "changed", "gone"}
    assert "changed since it was graded" in data["notes"]["changed"]
    flagged = [p["students"] for p in data["pairs"] if p["flagged"]]
    assert flagged == [["a", "b"]]  # the two identical programs; nothing with the files not compared
    assert (tmp_path / "out" / "index.html").is_file() and (tmp_path / "out" / "zh" / "index.html").is_file()


def test_a_folder_it_did_not_write_is_never_replaced(tmp_path, capsys):
    submissions = _class(tmp_path, {"a": CODE})
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep", encoding="utf-8")
    assert run_similarity(ROOT, submissions, tmp_path / "gb.sqlite", tmp_path / "mine", None) == 2
    assert "not replacing" in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("assignment", ["no-such-assignment"])
def test_an_assignment_no_run_was_graded_against_is_refused(tmp_path, capsys, assignment):
    submissions = _class(tmp_path, {"a": CODE})
    assert run_similarity(ROOT, submissions, tmp_path / "gb.sqlite", tmp_path / "out", assignment) == 2
    assert assignment in capsys.readouterr().err and not (tmp_path / "out").exists()
