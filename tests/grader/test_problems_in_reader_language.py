"""A refusal is stored as a kind with its values, not as a sentence in the grading language: a run
graded with --lang en is shown in Chinese by the class report's Chinese pages and by feedback in
Chinese, and a gradebook written before problems were kinds still reads (its sentences as they are).
The checks' own feedback stays in the language the run was graded in."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from coursegen.report import build_report
from grader.reporting.feedback_files import render_one
from grader.reporting.gradebook import Gradebook
from grader.scaleout.batch import run_batch
from grader.scaleout.executors import InProcess
from grader.scaleout.run import GradingRun
from tests.first_course import COURSE

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"
FAKE = "grader_fakes:fake_sandbox_factory"

# written out by hand, apart from grader/feedback.py's table: what each language must read
ENGLISH = "the file is not UTF-8 text (byte 0xff at offset 0)"
CHINESE = "文件不是 UTF-8 文本（偏移 0 处的字节 0xff）"


def _graded_in_english(tmp_path: Path) -> Path:
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "dave_tokens.py").write_bytes(b"\xff\xfe")
    book = tmp_path / "gradebook.sqlite"
    (result,) = run_batch(
        [folder],
        GradingRun(course=COURSE, seed=3, lang="en", checks_dir=CHECKS, sandbox_factory=FAKE),
        InProcess(),
        gradebook=book,
        progress=False,
    )
    assert result.score == 0 and result.problems_in("en") == [ENGLISH]  # the run's own report: its language
    return book


def test_the_gradebook_keeps_the_refusal_as_a_kind_with_its_values(tmp_path):
    book = _graded_in_english(tmp_path)
    with sqlite3.connect(book) as db:
        (stored,) = db.execute("SELECT problems FROM runs").fetchone()
    assert json.loads(stored) == [{"say": "not_utf8", "values": {"byte": 255, "offset": 0}}]


def test_a_refusal_graded_in_english_is_shown_in_chinese_by_the_chinese_report(tmp_path):
    book = _graded_in_english(tmp_path)
    out = tmp_path / "report"
    build_report(book, out, root=ROOT)
    english, chinese = (out / "index.html").read_text(), (out / "zh" / "index.html").read_text()
    assert ENGLISH in english and CHINESE not in english
    assert CHINESE in chinese and ENGLISH not in chinese
    students = (out / "students.js").read_text()  # the student page shows the one of its own language
    assert json.dumps({"en": ENGLISH, "zh": CHINESE}, ensure_ascii=False, sort_keys=True, separators=(",", ":")) in (
        students
    )


def test_a_refusal_graded_in_english_is_shown_in_chinese_by_feedback_in_chinese(tmp_path):
    book = _graded_in_english(tmp_path)
    with Gradebook(book) as opened:
        (result,) = opened.latest_results()
    assert result.lang == "en"
    chinese = render_one(result, "Tokens", lang="zh")
    assert f"<li>{CHINESE}</li>" in chinese and f"<li>{ENGLISH}</li>" not in chinese
    assert f"<li>{ENGLISH}</li>" in render_one(result, "Tokens")  # by default: the run's language


def test_a_sentence_an_older_run_stored_is_still_read_and_shown_as_it_is(tmp_path):
    book = _graded_in_english(tmp_path)
    with sqlite3.connect(book) as db:  # what a run stored before problems were kinds
        db.execute("DROP TRIGGER runs_append_only_update")
        db.execute("UPDATE runs SET problems = ?", (json.dumps(["an old sentence"]),))
    with Gradebook(book) as opened:
        (result,) = opened.latest_results()
        assert "an old sentence" in opened.export_csv()
    assert result.problems_in("zh") == ["an old sentence"]
    assert "<li>an old sentence</li>" in render_one(result, "Tokens", lang="zh")
