"""The class report in headless Chromium, opened from file://, in both languages: no console
error, no request leaving file://, sortable tables, the student drill-down, and a screenshot
of the misconception section in _artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.first_course import MODULES

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "_artifacts" / "screenshots"
HEADINGS = {"en": ("Misconceptions", "Share", "Quizzes"), "zh": ("常见误解", "比例", "测验")}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from coursegen.quiz.grade import append_to_gradebook, grade_responses
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant
    from coursegen.report import build_report
    from tests.report.synthetic import write_gradebook

    folder = tmp_path_factory.mktemp("report")
    write_gradebook(folder / "gradebook.sqlite", 120, reruns=7)
    (loaded,) = course_quizzes(REPO, ["lm-head-tying"])
    rows = []
    for k in range(120):  # stronger students (higher k) answer more questions right
        student = f"student-{k:05d}"
        for n, item in enumerate(make_variant(loaded, student)["questions"]):
            if item["type"] in ("single", "true_false") and (k + 7 * n) % 120 < k:
                right = next(i for i, o in enumerate(item["options"]) if o["correct"])
                rows.append(
                    {
                        "student": student,
                        "quiz": "lm-head-tying",
                        "question": item["id"],
                        "response": "ABCD"[right],
                        "line": len(rows) + 2,
                    }
                )
    append_to_gradebook(folder / "quizzes.sqlite", grade_responses(rows, {"lm-head-tying": loaded}), "0" * 64)
    build_report(folder / "gradebook.sqlite", folder / "out", quiz_gradebooks=[folder / "quizzes.sqlite"], root=REPO)
    return folder / "out"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_opens_from_file_with_no_error_and_no_request(report, make_page, lang):
    page = make_page()
    try:
        page.goto((report / ("index.html" if lang == "en" else "zh/index.html")).as_uri())
        section = page.locator("#misconceptions")
        assert section.locator("h2").inner_text() == HEADINGS[lang][0]
        assert page.locator("#quizzes h2").inner_text() == HEADINGS[lang][2]
        assert page.locator("#misconceptions svg").count() == 1
        assert page.locator("#quizzes .alpha").first.inner_text().endswith("%")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        section.screenshot(path=str(SCREENSHOTS / f"report-misconceptions-{lang}.png"))
        assert page.problems.all() == []
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_misconception_table_sorts_by_share_without_a_server(report, make_page, lang):
    page = make_page()
    try:
        page.goto((report / ("index.html" if lang == "en" else "zh/index.html")).as_uri())
        table = page.locator("#misconception-table")

        def shares() -> list[float]:
            return [
                float(v)
                for v in table.locator("tbody tr td:nth-child(6)").evaluate_all(
                    "cells => cells.map(c => c.getAttribute('data-value'))"
                )
            ]

        ranked = shares()
        assert ranked == sorted(ranked, reverse=True) and ranked[0] > ranked[-1]
        header = table.locator("thead th", has_text=HEADINGS[lang][1])
        header.locator("button").click()
        assert shares() == sorted(ranked) and header.get_attribute("aria-sort") == "ascending"
        header.locator("button").click()
        assert shares() == sorted(ranked, reverse=True) and header.get_attribute("aria-sort") == "descending"
        assert page.problems.all() == []
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_student_link_opens_their_drill_down_with_checks_mistakes_and_history(report, make_page, lang):
    page = make_page()
    try:
        page.goto((report / ("index.html" if lang == "en" else "zh/index.html")).as_uri())
        page.locator("#student-table a", has_text="student-00006").click()
        # the page renders from students.js after it loads: Playwright's expect waits for the DOM
        expect(page.locator("#student-report h1")).to_have_text("student-00006")
        expect(page.locator("#student-report section.run")).to_have_count(len(MODULES))  # one per module file
        assert page.locator("#student-report dl.hints dt").count() >= 1  # k % 10 == 6: mistakes
        history = page.locator("#student-report table").last.locator("tbody tr")
        expect(history).to_have_count(len(MODULES) + 1)  # rope graded twice
        assert page.locator(".lang-switch").get_attribute("href").endswith("#" + page.url.split("#")[1])
        assert page.problems.all() == []
    finally:
        page.context.close()
