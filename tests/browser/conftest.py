"""Fixtures for the browser tests: the real course built once into a temporary folder, one
headless Debian Chromium for the whole session, and one fresh page per test that records every
console error, uncaught page error and network request leaving file://.

The course is built with the command students and CI use (`coursegen build -o DIR`), so these
tests see exactly the site that ships. The build reuses the repository's `.coursegen-cache/`
(content-hash keyed, safe to share), which keeps it to a few seconds when `coursegen build`
already ran. The repository's own `_site/` is never touched.

Run: `python -m pytest tests/browser` (two to four minutes: the axe-core audit visits every page
in two settings and a sample of them on a phone); screenshots of the index, a lesson and a quiz in both themes, and of a quiz
answered with the keyboard only, land in `_artifacts/screenshots/` (git-ignored). Without /usr/bin/chromium
they fail, unless the user is not root (then nobody could have installed it: .ci/run installs it as root)
and an explicit skip marker says so; without the playwright package (a declared test dependency) they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.is_file() or os.geteuid() == 0:
        return
    missing = pytest.mark.skip(
        reason=f"{CHROMIUM} is missing and this user is not root, so it cannot be installed "
        "(as root .ci/run installs the Debian 'chromium' package)"
    )
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(missing)


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The course of this repository built into a temporary folder; returns the site folder. Built
    once per test session: under pytest-xdist a session fixture is set up once per worker, so the
    session's folder (the parent of each worker's basetemp) holds the site, the first worker to come
    builds it under a file lock and the others wait for it and reuse it (no test writes into it)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # basetemp is <session>/popen-gwN
    folder = base / "browser-site"
    out, built = folder / "_site", folder / "built"
    with FileLock(str(base / "browser-site.lock")):
        if not built.is_file():  # not yet built (or a build that failed half-way: built again)
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            result = subprocess.run(
                [sys.executable, "-m", "coursegen", "build", "--root", str(REPO), "-o", str(out), "--quiet"],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=900,
            )
            if result.returncode != 0:
                pytest.fail(f"coursegen build failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
            built.write_text("built\n", encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def course():
    """The loaded course (lesson ids and titles in both languages): what the site is built from."""
    from coursegen.loader import load_course

    return load_course(REPO)


@pytest.fixture(scope="package")
def browser():
    """One Chromium for the tests of this folder. Package scope, not session: Playwright's sync API
    cannot start while another instance is running, and other folders (tests/quiz) start their own."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: install the Debian 'chromium' package, as .ci/run does")
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@dataclass
class Problems:
    """What went wrong while pages were open: console errors, page errors, requests off file://."""

    console: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    network: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        return (
            [f"console error: {m}" for m in self.console]
            + [f"page error: {m}" for m in self.page_errors]
            + [f"request leaving the page: {u}" for u in self.network]
        )

    def clear(self) -> None:
        self.console.clear()
        self.page_errors.clear()
        self.network.clear()


def watch(page) -> Problems:
    problems = Problems()
    page.on(
        "console",
        lambda message: (
            problems.console.append(f"{message.text} ({message.location.get('url', '')})")
            if message.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.page_errors.append(str(error)))
    page.on(
        "request",
        lambda request: problems.network.append(request.url) if not request.url.startswith(LOCAL_SCHEMES) else None,
    )
    page.on(
        "requestfailed", lambda request: problems.console.append(f"failed to load {request.url}: {request.failure}")
    )
    return problems


def new_page(browser, color_scheme: str = "light"):
    """A page in its own context (1280x900) with `page.problems` recording what went wrong."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=color_scheme)
    page = context.new_page()
    page.problems = watch(page)
    return page


@pytest.fixture(scope="package")
def make_page(browser):
    """make_page(color_scheme="light") -> a new page; close it with page.context.close()."""
    return lambda color_scheme="light": new_page(browser, color_scheme)


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.context.close()


@pytest.fixture
def open_page(page, site):
    """open_page("en/rope-alibi.html") -> `page` with that file of the site loaded from file://."""

    def go(relative: str):
        page.goto((site / relative).as_uri())
        return page

    return go
