"""axe-core for the browser tests: which copy runs, which rules, which exceptions.

axe-core is Deque's accessibility engine; `axe-playwright-python` (the `test` extra) injects it
into a Playwright page and runs it. The copy of axe-core itself comes from the npm package
pinned in tests/browser/package.json when it is installed (`npm ci --prefix tests/browser`,
as .ci/run does), because it is newer than the copy inside the Python wheel: 4.14 reports two
unnamed search landmarks on one page, 4.12 does not. Without npm the wheel's copy runs and
the report header says so (see conftest.pytest_report_header).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
NPM_AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"

# WCAG 2.0 and 2.1, levels A and AA, plus Deque's best practices.
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
OPTIONS = {"runOnly": {"type": "tag", "values": RULE_TAGS}, "resultTypes": ["violations"]}

# Violations the site accepts, by rule id, each with the reason. None at present: add one only
# with a reason a reviewer can check (an axe false positive, with the axe issue that says so).
ALLOWED: dict[str, str] = {}


def axe_source() -> tuple[Path, str]:
    """(path of axe.min.js, where it comes from) for the copy these tests run."""
    if NPM_AXE.is_file():
        return NPM_AXE, "npm axe-core (tests/browser/package.json)"
    from axe_playwright_python.base import AXE_FILE_PATH

    return (
        AXE_FILE_PATH,
        "the copy inside axe-playwright-python (npm ci --prefix tests/browser installs the pinned one)",
    )


def axe_version(path: Path) -> str:
    """The version in the banner of axe.min.js ("/*! axe v4.14.1 ...")."""
    head = path.read_text(encoding="utf-8")[:200]
    return head.split("axe v", 1)[1].split()[0] if "axe v" in head else "unknown"


def make_axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe.from_file(axe_source()[0])


def inject(axe, page) -> None:
    """axe-core in the page's document, unless it is there already."""
    if not page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        page.evaluate(axe.axe_script)


def rules(axe, page, tags: list[str]) -> set[str]:
    """The ids of axe's rules with any of `tags` that a run by tag runs (experimental ones are not)."""
    inject(axe, page)
    return set(
        page.evaluate(
            "tags => axe.getRules(tags).filter(r => !r.tags.includes('experimental')).map(r => r.ruleId)", tags
        )
    )


def audit(axe, page, context=None, options=None) -> dict:
    """axe's result for the page as it is now (the rules of RULE_TAGS, or `options` when given). axe-core
    is injected once per document (Axe.run would inject its half-megabyte script again on every call: a
    fifth of an audit's time on a deck audited slide by slide)."""
    inject(axe, page)
    return page.evaluate("([context, options]) => axe.run(context || document, options)", [context, options or OPTIONS])


def describe(where: str, result: dict) -> list[str]:
    """One line per violating element that ALLOWED does not excuse: page, rule, impact, element."""
    lines = []
    for violation in result["violations"]:
        if violation["id"] in ALLOWED:
            continue
        for node in violation["nodes"]:
            lines.append(
                f"{where}: {violation['id']} ({violation['impact']}): {' '.join(map(str, node['target']))}"
                f"\n    {node['html'][:160]}\n    {violation['help']}"
            )
    return lines


def rule_ids(result: dict) -> set[str]:
    return {violation["id"] for violation in result["violations"]}


def dumps(result: dict) -> str:
    return json.dumps(result["violations"], indent=1)[:4000]
