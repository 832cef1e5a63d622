"""The incremental build (coursegen/incremental.py): after an edit, the site equals, byte for
byte, the site the whole writers write from nothing (`incremental=False`, a cache without
output units); and an edit rebuilds only the units that show what it changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen import build as _build
from coursegen.build import build_site
from tests.nonempty import nonempty

ALL_WRITERS = list(_build.OUTPUT_WRITERS)  # captured before the site-only fixture narrows them
ALPHA = "content/lessons/alpha.yaml"
BETA = "content/lessons/beta.yaml"


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def cold_site(root: Path, cache: Path, out: Path) -> dict[str, bytes]:
    """The site written whole by every writer, with the example and figure caches of `cache`
    (they are not what is under test) but none of its output units."""
    fresh = out.parent / f"{out.name}-cache"
    shutil.copytree(cache, fresh, ignore=shutil.ignore_patterns("site"))
    build_site(root, out, progress=False, cache_dir=fresh, incremental=False)
    return files(out)


def assert_same_site(incremental: dict[str, bytes], cold: dict[str, bytes]) -> None:
    assert sorted(incremental) == sorted(cold)
    different = [name for name in cold if incremental[name] != cold[name]]
    assert different == []


EDITS = {
    # kind: (file, old, new, text the edited page shows)
    "one prose word": (ALPHA, "An embedding is a table", "An embedding is one table", "An embedding is one table"),
    "a lesson title (every page's navigation)": (
        BETA,
        "title: {en: Rotary positions,",
        "title: {en: Rotary positions revised,",
        "Rotary positions revised",
    ),
    "a key term (the glossary)": (ALPHA, "A trainable table of shape", "A learned table of shape", "A learned table"),
    "a summary (the index)": (ALPHA, "Ids index rows of an embedding table.", "Ids pick rows.", "Ids pick rows."),
    "a code example (its output)": (ALPHA, 'print("rows:", len(table))', 'print("rows now:", len(table))', "rows now:"),
    "the course title": (
        "content/course.yaml",
        "title: {en: Mini course,",
        "title: {en: Mini course two,",
        "Mini course two",
    ),
}


@pytest.mark.parametrize("kind", list(EDITS))
def test_an_incremental_build_after_an_edit_equals_a_cold_build_byte_for_byte(course, tmp_path, kind):
    relative, old, new, shown = EDITS[kind]
    cache = course.root / ".coursegen-cache"
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    before = files(out)
    course.replace(relative, old, new)
    report = build_site(course.root, out, progress=False)
    after = files(out)
    assert report.units_reused > 0  # the assets, whatever the edit
    assert any(shown.encode() in data for name, data in after.items() if name.endswith(".html")), shown
    assert after != before
    assert_same_site(after, cold_site(course.root, cache, tmp_path / "cold"))


def test_a_prose_edit_rebuilds_its_lesson_and_the_course_pages_only(course, tmp_path):
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    course.replace(ALPHA, "An embedding is a table", "An embedding is one table")
    from coursegen import incremental

    seen: list[incremental.OutputCache] = []
    original = incremental.OutputCache.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        seen.append(self)

    incremental.OutputCache.__init__ = spy  # type: ignore[method-assign]
    try:
        build_site(course.root, out, progress=False)
    finally:
        incremental.OutputCache.__init__ = original  # type: ignore[method-assign]
    (units,) = seen
    # the course pages list every lesson (index, glossary, exercises); beta's pages are untouched
    assert sorted(units.written) == ["course-pages", "lesson-pages:alpha", "search:en:alpha", "search:zh:alpha"]
    assert "lesson-pages:beta" in units.reused and "assets" in units.reused


def test_no_change_rebuilds_nothing_and_writes_the_same_bytes(course, tmp_path):
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    first = files(out)
    report = build_site(course.root, out, progress=False)
    assert report.units_written == 0 and report.units_reused > 0
    assert files(out) == first


def test_a_course_template_edit_rebuilds_every_page(course, tmp_path):
    from coursegen.pages import PACKAGE_TEMPLATES

    out = tmp_path / "site"
    shutil.copytree(PACKAGE_TEMPLATES, course.root / "templates")
    build_site(course.root, out, progress=False)
    base = course.root / "templates" / "base.html"
    base.write_text(base.read_text(encoding="utf-8").replace("</footer>", "<p>Edited.</p></footer>"), encoding="utf-8")
    report = build_site(course.root, out, progress=False)
    assert report.units_reused == 0
    after = files(out)
    assert all(b"<p>Edited.</p>" in data for name, data in nonempty(after.items()) if name.endswith(".html"))
    assert_same_site(after, cold_site(course.root, course.root / ".coursegen-cache", tmp_path / "cold"))


def test_damaged_output_units_are_rebuilt_not_trusted(course, tmp_path):
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    first = files(out)
    units = course.root / ".coursegen-cache" / "site"
    (units / "lesson-pages_alpha" / "entry.json").write_text("{broken", encoding="utf-8")
    stored = next((units / "lesson-pages_beta").glob("files-*"))
    next(p for p in stored.rglob("*.html")).unlink()  # a file the manifest names is gone
    (units / "search-fragments.json").write_text("[]", encoding="utf-8")
    report = build_site(course.root, out, progress=False)
    assert report.units_written >= 2
    assert files(out) == first


COLD_BUILD = """
import sys
from coursegen.build import build_site
build_site(sys.argv[1], sys.argv[2], progress=False, cache_dir=sys.argv[3], incremental=False)
"""


def _run(*args: str, cwd: Path) -> None:
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(repo)}
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)


@pytest.mark.slow
def test_the_second_course_with_every_writer_equals_a_cold_build_after_each_edit(tmp_path):
    """`coursegen build` on the second course (every writer: quiz pages and notebooks too, in its
    own process as a user runs it): after a prose edit, a quiz question edit and a hint edit
    (the quiz's feedback), the site equals the cold build's bytes."""
    source = Path(__file__).resolve().parents[1] / "courses" / "statistics"
    root = tmp_path / "course"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    out = tmp_path / "site"
    build = ("-m", "coursegen", "build", "--root", str(root), "-o", str(out), "--quiet")
    _run(*build, cwd=root)
    edits = [
        ("content/lessons/center.yaml", None),
        ("content/quizzes/center.yaml", ("What is the mean of", "What is the average of")),
        ("solutions/mistakes/center.py", ("the lower of the two middle", "the smaller middle")),
    ]
    for number, (relative, change) in nonempty(enumerate(edits)):
        path = root / relative
        text = path.read_text(encoding="utf-8")
        if change is None:  # the first prose sentence of the lesson gets one more word
            marker = "      - kind: text\n        en: |\n          "
            assert marker in text
            text = text.replace(marker, marker + "Indeed, ", 1)
        else:
            assert change[0] in text
            text = text.replace(change[0], change[1], 1)
        path.write_text(text, encoding="utf-8")
        _run(*build, cwd=root)
        fresh = tmp_path / f"cold{number}-cache"
        shutil.copytree(root / ".coursegen-cache", fresh, ignore=shutil.ignore_patterns("site"))
        _run("-c", COLD_BUILD, str(root), str(tmp_path / f"cold{number}"), str(fresh), cwd=root)
        assert_same_site(files(out), files(tmp_path / f"cold{number}"))
    assert b"Indeed, " in (out / "en" / "center.html").read_bytes()
    assert "What is the average of" in (out / "en" / "quiz-center.html").read_text(encoding="utf-8")


def test_a_prose_edit_rebuilds_that_lessons_slide_decks_only_and_they_equal_a_cold_build(course, tmp_path, monkeypatch):
    from coursegen import incremental
    from coursegen.slides.output import write_decks

    monkeypatch.setattr(_build, "OUTPUT_WRITERS", [*_build.OUTPUT_WRITERS, write_decks])
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    course.replace(ALPHA, "An embedding is a table", "An embedding is one table")
    seen: list[incremental.OutputCache] = []
    original = incremental.OutputCache.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        seen.append(self)

    monkeypatch.setattr(incremental.OutputCache, "__init__", spy)
    build_site(course.root, out, progress=False)
    (units,) = seen
    assert "slides:alpha" in units.written and "slides:beta" in units.reused
    after = files(out)
    assert b"An embedding is one table" in after["en/slides/alpha.html"]
    assert_same_site(after, cold_site(course.root, course.root / ".coursegen-cache", tmp_path / "cold"))
