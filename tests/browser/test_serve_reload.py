"""`coursegen serve` in a real browser: a saved edit shows on the open page without touching the
browser, a failing build replaces the page with its errors, and fixing it brings the page back.
The seconds from save to shown are printed (never asserted: the machine is shared)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

MINI = Path(__file__).resolve().parents[1] / "site" / "fixtures" / "mini"
LESSON = Path("content") / "lessons" / "alpha.yaml"


def test_the_open_page_reloads_after_a_save_and_shows_a_build_error(browser, tmp_path, monkeypatch):
    from coursegen import outputs
    from coursegen.serve import serve

    # the site tests' mini course: its pages only (its quiz is a stub the quiz gate refuses)
    monkeypatch.setattr(outputs, "OUTPUTS", list(outputs.SITE_OUTPUTS))

    root = tmp_path / "course"
    shutil.copytree(MINI, root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    stop = threading.Event()
    ready: list[str] = []
    thread = threading.Thread(
        target=serve, args=(root,), daemon=True, kwargs={"port": 0, "stop": stop, "on_ready": ready.append}
    )
    thread.start()
    context = browser.new_context()
    page = context.new_page()
    try:
        deadline = time.monotonic() + 300
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        page.goto(ready[0] + "en/alpha.html")
        page.wait_for_selector("text=An embedding is a table")
        path = root / LESSON
        original = path.read_text(encoding="utf-8")

        saved = time.monotonic()
        path.write_text(original.replace("An embedding is a table", "An embedding is one table"), encoding="utf-8")
        page.wait_for_selector("text=An embedding is one table", timeout=60_000)
        print(f"\nsave to shown: {time.monotonic() - saved:.2f} s")

        broken = original.replace("title: {en: Tokens and vectors,", "title: {en: 5,\n  bad: 1,")
        path.write_text(broken, encoding="utf-8")
        page.wait_for_selector("text=The build failed", timeout=60_000)
        assert "alpha.yaml:" in page.inner_text("body")

        path.write_text(original, encoding="utf-8")
        page.wait_for_selector("text=An embedding is a table", timeout=60_000)
        assert "The build failed" not in page.inner_text("body")
    finally:
        context.close()
        stop.set()
        thread.join(timeout=10)
