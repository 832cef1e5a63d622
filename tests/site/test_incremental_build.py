"""The incremental build (one loop over the units of coursegen.outputs): after an edit, the site
equals, byte for byte, the site a cold build writes (`incremental=False`, a cache without output
units); an edit rebuilds only the units that show what it changed; and an output added to the
outputs list is incremental with no edit of the build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen import outputs
from coursegen.build import build_site
from tests.nonempty import nonempty

ALPHA = "content/lessons/alpha.yaml"
BETA = "content/lessons/beta.yaml"


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def cold_site(root: Path, cache: Path, out: Path) -> dict[str, bytes]:
    """The site written by a cold build (every unit written), with the example and figure caches of `cache`
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
    from coursegen import cache

    made: list[str] = []
    original = cache.Cache.put

    def spy(self, kind, key, value):
        made.append(kind)
        original(self, kind, key, value)

    cache.Cache.put = spy  # type: ignore[method-assign]
    try:
        report = build_site(course.root, out, progress=False)
    finally:
        cache.Cache.put = original  # type: ignore[method-assign]
    # the course pages list every lesson (index, glossary, exercises); beta's pages are untouched
    assert sorted(report.written) == ["course-pages", "lesson-pages:alpha", "search-index"]
    assert "lesson-pages:beta" in report.reused and "assets" in report.reused
    assert made.count("search-fragment") == 2  # alpha's, in en and zh; beta's come from the cache


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
    shutil.rmtree(units / "search-index")
    for fragment in nonempty((course.root / ".coursegen-cache" / "search-fragment").glob("*.json")):
        fragment.write_text("[]", encoding="utf-8")  # not an entry: a miss, computed again
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
    own process as a user runs it): after a prose edit and a quiz question edit (units apart: the
    lesson's and the quiz's), then after a hint edit (the quiz's feedback), the site equals the
    cold build's bytes."""
    source = Path(__file__).resolve().parents[1] / "courses" / "statistics"
    root = tmp_path / "course"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache", "_site"))
    out = tmp_path / "site"
    build = ("-m", "coursegen", "build", "--root", str(root), "-o", str(out), "--quiet")
    _run(*build, cwd=root)
    rounds = [
        [
            ("content/lessons/center.yaml", None),
            ("content/quizzes/center.yaml", ("What is the mean of", "What is the average of")),
        ],
        [("solutions/mistakes/center.py", ("the lower of the two middle", "the smaller middle"))],
    ]
    for number, edits in nonempty(enumerate(rounds)):
        for relative, change in edits:
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


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_prose_edit_rebuilds_that_lessons_slide_decks_only_and_they_equal_a_cold_build(course, tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "OUTPUTS", [*outputs.OUTPUTS, "coursegen.outputs.decks"])
    out = tmp_path / "site"
    build_site(course.root, out, progress=False)
    course.replace(ALPHA, "An embedding is a table", "An embedding is one table")
    report = build_site(course.root, out, progress=False)
    assert "slides:alpha" in report.written and "slides:beta" in report.reused
    after = files(out)
    assert b"An embedding is one table" in after["en/slides/alpha.html"]
    assert_same_site(after, cold_site(course.root, course.root / ".coursegen-cache", tmp_path / "cold"))


def test_an_output_added_to_the_list_is_reused_byte_for_byte_on_a_no_change_rebuild(course, tmp_path, monkeypatch):
    """A toy output (tests/site/toy_output.py: one module, one unit per lesson) added through the
    outputs list, with no edit of the build: a no-change rebuild copies its files from the cache
    without calling its write, byte for byte; a prose edit of one lesson rewrites that lesson's only."""
    from tests.site import toy_output

    monkeypatch.setattr(outputs, "OUTPUTS", [*outputs.OUTPUTS, "tests.site.toy_output"])
    monkeypatch.setattr(toy_output, "WRITTEN", [])
    out = tmp_path / "site"
    first = build_site(course.root, out, progress=False)
    assert sorted(name for name in first.written if name.startswith("toy:")) == ["toy:alpha", "toy:beta"]
    assert toy_output.WRITTEN == ["alpha", "beta"]
    before = files(out)
    assert sorted(name for name in before if name.startswith("toy/")) == ["toy/alpha.txt", "toy/beta.txt"]

    again = build_site(course.root, out, progress=False)
    assert again.written == ()
    assert {"toy:alpha", "toy:beta"} <= set(again.reused)
    assert toy_output.WRITTEN == ["alpha", "beta"]  # write was not called again
    assert files(out) == before

    course.replace(ALPHA, "An embedding is a table", "An embedding is one table")
    edited = build_site(course.root, out, progress=False)
    assert "toy:alpha" in edited.written and "toy:beta" in edited.reused
    assert toy_output.WRITTEN == ["alpha", "beta", "alpha"]
    assert files(out)["toy/beta.txt"] == before["toy/beta.txt"]
    assert files(out)["toy/alpha.txt"] != before["toy/alpha.txt"]
