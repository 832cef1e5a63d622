"""The authoring guide's example is a valid lesson; `coursegen serve` serves and rebuilds."""

from __future__ import annotations

import re
import shutil
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from tests.nonempty import nonempty


REPO = Path(__file__).resolve().parents[2]


def yaml_blocks(markdown_text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", markdown_text, flags=re.S)


def test_the_complete_example_lesson_in_the_authoring_guide_is_valid(tmp_path):
    from coursegen.loader import load_course

    course_yaml, lesson_yaml = yaml_blocks((REPO / "docs" / "authoring.md").read_text(encoding="utf-8"))[:2]
    (tmp_path / "content" / "lessons").mkdir(parents=True)
    (tmp_path / "content" / "quizzes").mkdir()
    course_yaml = course_yaml.replace("  - lm-head-tying\n", "")  # the guide's course lists a second lesson
    (tmp_path / "content" / "course.yaml").write_text(course_yaml, encoding="utf-8")
    (tmp_path / "content" / "lessons" / "tokens-embeddings.yaml").write_text(
        lesson_yaml.replace("lesson:lm-head-tying", "lesson:tokens-embeddings"), encoding="utf-8"
    )
    (tmp_path / "content" / "quizzes" / "tokens-embeddings.yaml").write_text("{}\n", encoding="utf-8")
    shutil.copytree(REPO / "content" / "plugins", tmp_path / "content" / "plugins")  # the figure it draws
    shutil.copytree(REPO / "exercises", tmp_path / "exercises")  # the registry naming its exercise
    loaded = load_course(tmp_path)
    lesson = loaded.lessons[0]
    kinds = [block.kind for section in lesson.sections for block in section.blocks]
    assert kinds == ["text", "note", "code", "figure"]


def test_the_authoring_guide_lists_every_figure_kind_with_its_parameters():
    import inspect

    from coursegen.drawing import figures

    FIGURES = figures(REPO)
    guide = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert FIGURES
    for kind, function in FIGURES.items():
        row = next(line for line in guide.splitlines() if line.startswith(f"| `{kind}` |"))
        for name in inspect.signature(function).parameters:
            assert f"`{name}`" in row, (kind, name)


@contextmanager
def served(root: Path, interval: float = 0.1, within: float = 120) -> Iterator[str]:
    """`coursegen serve` of the course at `root` in a thread: its base URL once the first build is
    served; stopped at the end of the block."""
    from coursegen.serve import serve

    stop = threading.Event()
    ready: list[str] = []
    thread = threading.Thread(
        target=serve,
        args=(root,),
        daemon=True,
        kwargs={"port": 0, "interval": interval, "stop": stop, "on_ready": ready.append},
    )
    thread.start()
    try:
        deadline = time.monotonic() + within
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready, "coursegen serve did not start"
        yield ready[0]
    finally:
        stop.set()
        thread.join(timeout=10)


def test_serve_builds_serves_and_rebuilds_when_content_changes(course):
    with served(course.root) as base:
        url = base + "en/beta.html"
        assert "Rotary positions" in urllib.request.urlopen(url).read().decode()
        course.replace("content/lessons/beta.yaml", "title: {en: Rotary positions", "title: {en: Rotating positions")
        page, deadline = "", time.monotonic() + 60
        while time.monotonic() < deadline and "Rotating positions" not in page:
            time.sleep(0.2)
            page = urllib.request.urlopen(url).read().decode()
        assert "Rotating positions" in page


def _get(url: str) -> tuple[int, str]:
    import urllib.error

    try:
        with urllib.request.urlopen(url) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_reloads_the_page_and_shows_a_build_error_instead_of_a_stale_page(course):
    from coursegen.serve import serve

    stop = threading.Event()
    ready: list[str] = []
    thread = threading.Thread(
        target=serve,
        args=(course.root,),
        daemon=True,
        kwargs={"port": 0, "interval": 0.05, "stop": stop, "on_ready": ready.append},
    )
    thread.start()

    def version() -> int:
        import json

        return json.loads(_get(ready[0] + "__coursegen__/version")[1])["version"]

    def next_version(after: int) -> None:
        deadline = time.monotonic() + 60
        while version() == after and time.monotonic() < deadline:
            time.sleep(0.05)
        assert version() > after

    try:
        deadline = time.monotonic() + 60
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        page_url = ready[0] + "en/alpha.html"
        status, page = _get(page_url)
        assert status == 200 and '<script src="/__coursegen__/reload.js"></script>' in page
        status, script = _get(ready[0] + "__coursegen__/reload.js")
        assert status == 200 and "window.location.reload()" in script and "__coursegen__/version" in script
        # the built site itself holds no trace of the preview
        assert all(
            b"__coursegen__" not in p.read_bytes() for p in nonempty((course.root / "_site").rglob("*")) if p.is_file()
        )

        before = version()
        course.replace("content/lessons/alpha.yaml", "An embedding is a table", "An embedding is one table")
        next_version(before)
        assert "An embedding is one table" in _get(page_url)[1]

        # a mistake: every page shows it (file:line:column), not the page built before it
        before = version()
        course.replace("content/lessons/alpha.yaml", "title: {en: Tokens and vectors,", "title: {en: 5,\n  bad: 1,")
        next_version(before)
        status, page = _get(page_url)
        assert status == 500 and "The build failed" in page and "alpha.yaml:" in page
        assert "An embedding is one table" not in page
        assert '<script src="/__coursegen__/reload.js"></script>' in page  # it reloads once fixed

        before = version()
        course.replace("content/lessons/alpha.yaml", "title: {en: 5,\n  bad: 1,", "title: {en: Tokens and vectors,")
        next_version(before)
        status, page = _get(page_url)
        assert status == 200 and "An embedding is one table" in page
    finally:
        stop.set()
        thread.join(timeout=10)


def test_serve_rebuilds_with_an_edited_plugin_module(tmp_path):
    """A course's plugin modules are imported once per process: an edited one must be imported
    again before the rebuild, or the page keeps what the old code drew."""
    root = tmp_path / "statistics"
    shutil.copytree(
        REPO / "tests/courses/statistics", root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*")
    )
    plugin = root / "content/plugins/figures.py"
    with served(root) as base:
        url = base + "en/center.html"
        page = urllib.request.urlopen(url).read().decode()
        assert "#d62728" in page and "#9467bd" not in page  # the mean's triangle, as the plugin draws it
        text = plugin.read_text(encoding="utf-8")
        plugin.write_text(text.replace('"^", color="#d62728"', '"^", color="#9467bd"'), encoding="utf-8")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and "#9467bd" not in page:
            time.sleep(0.2)
            page = urllib.request.urlopen(url).read().decode()
        assert "#9467bd" in page
