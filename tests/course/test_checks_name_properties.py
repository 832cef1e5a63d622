"""Every hidden check names the property it checks, in English and Chinese
(@pytest.mark.hidden(en=..., zh=...)): a failing hidden check tells the student what is wrong
without giving its inputs away."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.running.session import check_info
from tests.first_course import COURSE
from tests.nonempty import nonempty

CHECKS_DIR = Path(__file__).resolve().parents[2] / "grader" / "checks"


@pytest.fixture(scope="module")
def checks() -> list:
    items: list = []

    class Keep:
        def pytest_collection_finish(self, session):
            items.extend(session.items)

    pytest.main(
        [
            str(CHECKS_DIR),
            "-p",
            "grader.running.pytest_plugin",
            "--collect-only",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:terminal",
            "--import-mode=importlib",
            f"--rootdir={CHECKS_DIR.parent}",
            "-o",
            "addopts=",
        ],
        plugins=[Keep()],
    )
    return [check_info(item, COURSE.registry) for item in items]


def test_every_hidden_check_says_what_it_checks_in_both_languages(checks):
    hidden = [c for c in checks if c.hidden]
    assert len(hidden) >= 40
    missing = [c.item.name for c in hidden if set(c.says) != {"en", "zh"} or not all(c.says.values())]
    assert missing == []


def test_no_two_hidden_checks_of_an_exercise_say_the_same(checks):
    seen: dict = {}
    for check in nonempty((c for c in checks if c.hidden)):
        key = (check.exercise, check.says["en"])
        assert key not in seen, f"{check.item.name} and {seen[key]} say the same"
        seen[key] = check.item.name
