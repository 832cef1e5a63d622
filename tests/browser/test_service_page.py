"""The grading service's student page in Chromium, served by a real `coursegen service start`:
paste the token, choose the assignment, upload a file, watch the status and read the feedback,
in both languages; axe-core finds nothing on it before or after the feedback arrives."""

from __future__ import annotations

import pytest

from tests.browser.axe import audit, describe, make_axe
from tests.service.running import REPO, issue_tokens, start_service

pytestmark = [pytest.mark.slow, pytest.mark.browser]

POSITIONS = REPO / "tests" / "fixtures" / "submissions" / "correct" / "positions.py"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("service-page")
    gradebook = folder / "gradebook.sqlite"
    tokens = issue_tokens(gradebook, ["alice"], folder)
    running = start_service(gradebook, "--workers", "1")
    yield running, tokens
    running.stop()


@pytest.mark.parametrize("lang, graded, score", [("en", "Graded", "Score: 8 / 16"), ("zh", "已评分", "得分: 8 / 16")])
def test_a_student_submits_and_reads_the_feedback(page, service, lang, graded, score):
    running, tokens = service
    axe = make_axe()
    page.goto(f"{running.url}/?lang={lang}")
    assert page.locator("html").get_attribute("lang") == lang
    problems = describe(f"/?lang={lang}", audit(axe, page))
    page.get_by_label("token" if lang == "en" else "令牌", exact=False).fill(tokens["alice"])
    page.locator("#save").click()
    page.locator("#assignment option[value='position-sinusoidal']").wait_for(state="attached")
    page.locator("#assignment").select_option("position-sinusoidal")
    page.locator("#files").set_input_files(str(POSITIONS))
    page.locator("#submit").click()
    page.locator("#status").filter(has_text=graded).wait_for(timeout=120_000)
    feedback = page.locator("#feedback")
    assert score in feedback.inner_text()
    assert "sinusoidal_encoding" in feedback.inner_text()
    problems += describe(f"/?lang={lang} with feedback", audit(axe, page))
    assert not problems, "\n".join(problems)
    assert not page.problems.console and not page.problems.page_errors, page.problems.all()
    # a reload keeps the token (localStorage) and lists the submission
    page.reload()
    assert page.locator("#token").input_value() == tokens["alice"]
    page.locator("#assignment option[value='position-sinusoidal']").wait_for(state="attached")
    page.locator("#assignment").select_option("position-sinusoidal")
    page.locator("#load").click()
    page.locator("#history li").first.wait_for()
