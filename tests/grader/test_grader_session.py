"""grader/running/pytest_plugin.py + grader/running/grade.py: one pytest session grading many submissions.

Uses the local checks in tests/fixtures/grader/checks and an in-process fake sandbox
(trusted fixtures only); the real sandbox is covered by test_grader_end_to_end.py."""

from pathlib import Path

import pytest

from grader.running.grade import grade_submission, grade_submissions
from grader.running.session import GraderSetupError, derive_seed
from grader.reading.submission import load_submission
from grader_fakes import FakeSandbox
from tests.first_course import COURSE
from tests.nonempty import nonempty

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"


def grade(path: Path, **options):
    return grade_submission(
        load_submission(path, COURSE),
        seed=7,
        checks_dir=options.pop("checks_dir", CHECKS),
        sandbox_factory=FakeSandbox,
        **options,
        course=COURSE,
    )


def write(tmp_path: Path, name: str, code: str) -> Path:
    path = tmp_path / name
    path.write_text(code)
    return path


def test_reference_scores_full_marks():
    result = grade(ROOT / "solutions" / "rope.py")
    assert result.max_score == 4 and result.score == 4
    assert all(t.status == "passed" for t in result.tests)


def test_stub_scores_zero_with_the_error_named():
    result = grade(ROOT / "exercises" / "rope.py")
    assert result.score == 0
    public = [t for t in result.tests if not t.hidden]
    assert all("NotImplementedError" in t.output for t in nonempty(public))


def test_hidden_check_feedback_is_only_pass_or_fail(tmp_path):
    path = write(tmp_path, "rope.py", "def apply_rope(x, positions=None, base=10000.0):\n    return x * 2\n")
    result = grade(path)
    hidden = [t for t in result.tests if t.hidden]
    assert hidden and all(t.output == "This hidden check failed." for t in hidden)


def test_missing_function_fails_its_checks_with_a_sentence(tmp_path):
    path = write(
        tmp_path,
        "tokens.py",
        "def encode(tokens, vocab, unk_token='<UNK>'):\n"
        "    return [vocab.get(t, vocab.get(unk_token)) for t in tokens]\n",
    )
    result = grade(path)
    pad = [t for t in result.tests if t.exercise == "pad_batch"]
    assert pad and all("pad_batch is not defined" in t.output for t in pad)
    assert any(t.status == "passed" for t in result.tests if t.exercise == "encode")


def test_submission_that_fails_to_load_scores_zero_with_the_reason(tmp_path):
    path = write(
        tmp_path,
        "rope.py",
        "raise RuntimeError('boom at import')\ndef apply_rope(x, positions=None, base=10000.0):\n    return x\n",
    )
    result = grade(path)
    assert result.score == 0 and result.max_score == 4
    assert all("boom at import" in t.output for t in result.tests if not t.hidden)


def test_fatal_submission_is_graded_zero_without_a_sandbox(tmp_path):
    path = tmp_path / "rope.py"
    path.write_bytes(b"\xff")
    before = FakeSandbox.loads
    result = grade(path)
    assert result.score == 0 and result.max_score == 4 and FakeSandbox.loads == before
    assert result.problems and "not UTF-8" in str(result.problems[0])


def test_many_submissions_share_one_session_with_one_load_each():
    submissions = [
        load_submission(ROOT / "solutions" / "rope.py", COURSE),
        load_submission(ROOT / "exercises" / "rope.py", COURSE),
        load_submission(ROOT / "solutions" / "tokens.py", COURSE),
    ]
    sandboxes, scores = [], {}

    def factory():
        sandboxes.append(FakeSandbox())
        return sandboxes[-1]

    before = FakeSandbox.loads
    grade_submissions(
        enumerate(submissions),
        lambda key, outs: scores.__setitem__(key, sum(o.passed for o in outs)),
        seed=1,
        checks_dir=CHECKS,
        sandbox_factory=factory,
        course=COURSE,
    )
    assert len(sandboxes) == 1 and sandboxes[0].closed
    assert FakeSandbox.loads - before == 3
    assert scores[0] == 4 and scores[1] == 0 and scores[2] == 3


def test_check_that_crashes_is_reported_as_unfinished(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_x.py").write_text(
        "import pytest\n\n@pytest.mark.exercise('apply_rope')\ndef test_crash(candidate):\n    {}['missing']\n"
    )
    result = grade(ROOT / "solutions" / "rope.py", checks_dir=checks)
    assert result.tests[0].status == "failed" and "could not finish: KeyError" in result.tests[0].output


def test_check_without_exercise_marker_stops_grading(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_x.py").write_text("def test_unmarked(candidate):\n    pass\n")
    with pytest.raises(GraderSetupError, match="needs @pytest.mark.exercise"):
        grade(ROOT / "solutions" / "rope.py", checks_dir=checks)


def test_check_file_that_cannot_be_imported_stops_grading(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_x.py").write_text("import no_such_module_anywhere\n")
    with pytest.raises(GraderSetupError, match="could not be collected"):
        grade(ROOT / "solutions" / "rope.py", checks_dir=checks)


def test_feedback_language_follows_lang(tmp_path):
    result = grade(ROOT / "exercises" / "rope.py", lang="zh")
    hidden = [t for t in result.tests if t.hidden]
    assert hidden[0].output == "这个隐藏检查未通过。"


def test_check_seeds_depend_on_run_seed_and_check_id():
    assert derive_seed(1, "test_rope::a") == derive_seed(1, "test_rope::a")
    assert derive_seed(1, "test_rope::a") != derive_seed(2, "test_rope::a")
    assert derive_seed(1, "test_rope::a") != derive_seed(1, "test_rope::b")


def test_a_users_pytest_addopts_reach_neither_the_grading_session_nor_beyond_it(tmp_path, monkeypatch):
    """PYTEST_ADDOPTS is for the user's (or a CI job's) own test runs: an option of a plugin the
    grading session leaves out (--junitxml) once stopped every grade and verify run with "unrecognized
    arguments", and -x would have stopped a submission at its first failed check. The variable is set
    aside while the session reads its command line, and is there again afterwards."""
    report = tmp_path / "junit.xml"
    monkeypatch.setenv("PYTEST_ADDOPTS", f"--junitxml={report} -x")
    result = grade(ROOT / "exercises" / "rope.py")  # every check fails: -x would stop at the first
    assert result.max_score == 4 and len(result.tests) == 4 and result.score == 0
    assert not report.exists()
    import os

    assert os.environ["PYTEST_ADDOPTS"] == f"--junitxml={report} -x"
