"""grader/reporting/reports.py: every format from one result object, parsed back and validated."""

import json
from xml.etree import ElementTree as ET

import pytest

from grader.reporting import reports
from grader.reporting.results import CheckResult, SubmissionResult

SECRET = "expected 0.123456 at index [3, 1]"


def result(**overrides) -> SubmissionResult:
    tests = [
        CheckResult("test_rope_matches", "apply_rope", 2, 2, "passed", "", False),
        CheckResult("test_rope_positions", "apply_rope", 0, 1, "failed", "apply_rope is wrong at index [0]", False),
        CheckResult("test_rope_long", "apply_rope", 0, 1, "failed", SECRET, True),
        CheckResult("test_rope_hidden_ok", "apply_rope", 1, 1, "passed", "", True),
    ]
    data = dict(
        student="alice",
        submission="alice/rope.py",
        sha256="ab" * 32,
        score=3,
        max_score=5,
        tests=tests,
        problems=["no cell defines encode"],
        lang="en",
    )
    data.update(overrides)
    return SubmissionResult(**data)


def test_gradescope_results_follow_the_schema():
    data = json.loads(reports.gradescope(result()))
    assert data["score"] == 3 and data["extra_data"]["max_score"] == 5 and "max_score" not in data
    assert len(data["tests"]) == 4
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in ("visible", "hidden", "after_due_date", "after_published")
    assert sum(t["score"] for t in data["tests"]) == data["score"]


def test_gradescope_hidden_checks_are_visible_after_the_due_date_only():
    data = json.loads(reports.gradescope(result()))
    visibility = {t["name"].split(": ")[1]: t["visibility"] for t in data["tests"]}
    assert visibility["test_rope_long"] == "after_due_date" and visibility["test_rope_matches"] == "visible"


@pytest.mark.parametrize("fmt", reports.FORMATS)
def test_no_format_reveals_hidden_check_data(fmt):
    assert SECRET not in reports.render(result(), fmt)


@pytest.mark.parametrize("fmt", reports.FORMATS)
def test_every_format_is_deterministic(fmt):
    assert reports.render(result(), fmt) == reports.render(result(), fmt)


def test_junit_xml_parses_with_one_case_per_check_and_failures_counted():
    root = ET.fromstring(reports.junit([result(), result(student="bob", score=5)]))
    suites = root.findall("testsuite")
    assert len(suites) == 2 and root.get("tests") == "8" and root.get("failures") == "4"
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases][:2] == ["test_rope_matches", "test_rope_positions"]
    assert cases[1].find("failure") is not None and cases[0].find("failure") is None


def test_json_round_trips_to_the_same_result():
    original = result()
    data = json.loads(reports.json(original))
    back = SubmissionResult.from_dict(data)
    assert (back.student, back.score, back.max_score, [t.name for t in back.tests]) == (
        original.student,
        original.score,
        original.max_score,
        [t.name for t in original.tests],
    )


def test_json_of_a_batch_is_a_list():
    assert len(json.loads(reports.json([result(), result(student="bob")]))) == 2


def test_markdown_has_a_score_heading_and_a_row_per_check():
    text = reports.markdown(result())
    assert "## alice: 3/5" in text
    assert text.count("| apply_rope |") == 4
    assert "apply_rope is wrong at index [0]" in text


def test_text_shows_problems_and_the_failing_feedback():
    text = reports.text(result())
    assert "score 3/5" in text and "! no cell defines encode" in text
    assert "FAIL test_rope_positions" in text and "apply_rope is wrong at index [0]" in text


def test_text_labels_follow_the_language():
    assert "得分 3/5" in reports.text(result(lang="zh"))


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown report format"):
        reports.render(result(), "pdf")
