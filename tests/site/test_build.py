"""Building the site: examples, caching, determinism, atomicity."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coursegen.build import build_site
from coursegen.errors import ContentError, ContentErrors

ALPHA = "content/lessons/alpha.yaml"

from coursegen import outputs as _outputs  # noqa: E402
from tests.nonempty import nonempty  # noqa: E402

ALL_OUTPUTS = list(_outputs.OUTPUTS)  # captured before the site-only fixture narrows them


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_build_writes_the_documented_layout(course):
    build_site(course.root, course.root / "_site", progress=False)
    site = course.root / "_site"
    for page in ["index.html", "assets/style.css", "assets/pygments.css", "assets/search.js", "assets/search-index.js"]:
        assert (site / page).is_file(), page
    for lang in ("en", "zh"):
        for page in ["index.html", "alpha.html", "beta.html", "glossary.html", "exercises.html", "search.html"]:
            assert (site / lang / page).is_file(), f"{lang}/{page}"


def test_example_output_is_the_real_output_of_the_code(course):
    course.replace(ALPHA, 'print("rows:", len(table))', 'print("rows:", len(table) * 21)')
    build_site(course.root, course.root / "_site", progress=False)
    page = (course.root / "_site/en/alpha.html").read_text(encoding="utf-8")
    assert "rows: 42" in page


def test_examples_of_a_lesson_share_one_namespace_in_order(built_site):
    page = (built_site / "en/alpha.html").read_text(encoding="utf-8")
    assert "row 1: [0.3, 0.4]" in page  # block "second" reads `table` defined by block "first"


def test_a_failing_example_fails_the_build_naming_lesson_block_line_and_traceback(course):
    course.replace(ALPHA, 'print("row 1:", table[1])', 'print("row 1:", table[7])')
    with pytest.raises(ContentErrors) as caught:
        build_site(course.root, course.root / "_site", progress=False)
    (error,) = caught.value.errors
    assert str(error.location) == course.position(ALPHA, 'print("row 1:", table[7])')
    assert "code example 'second' of lesson 'alpha' raised an exception" in error.message
    assert "IndexError: list index out of range" in error.message
    assert "Traceback" in error.message
    assert not (course.root / "_site").exists()


def test_a_failing_build_leaves_the_previous_site_untouched(course):
    site = course.root / "_site"
    build_site(course.root, site, progress=False)
    before = tree_digest(site)
    course.replace(ALPHA, 'print("row 1:", table[1])', 'raise RuntimeError("boom")')
    with pytest.raises(ContentErrors):
        build_site(course.root, site, progress=False)
    assert tree_digest(site) == before
    leftovers = [p.name for p in course.root.iterdir() if p.name.startswith("._site")]
    assert leftovers == []


def test_a_content_error_writes_nothing_but_the_cache(course):
    course.replace(ALPHA, "key_terms:", "key_term:")
    with pytest.raises(ContentErrors):
        build_site(course.root, course.root / "_site", progress=False)
    assert sorted(p.name for p in course.root.iterdir()) == [".coursegen-cache", "content", "exercises", "solutions"]


def test_a_failing_output_leaves_the_previous_site_untouched(course, monkeypatch):
    import types

    from coursegen import outputs

    site = course.root / "_site"
    build_site(course.root, site, progress=False)
    before = tree_digest(site)

    def broken_write(out):
        (out / "half-written.txt").write_text("partial")
        raise OSError("disk full")

    broken = types.ModuleType("tests_broken_output")
    broken.__file__ = __file__
    broken.units = lambda build: iter([outputs.Unit("broken", "key", broken_write)])  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tests_broken_output", broken)
    monkeypatch.setattr(outputs, "OUTPUTS", [*outputs.OUTPUTS, "tests_broken_output"])
    with pytest.raises(OSError):
        build_site(course.root, site, progress=False)
    assert tree_digest(site) == before
    assert [p.name for p in course.root.iterdir() if p.name.startswith("._site")] == []


def test_two_builds_are_byte_identical(course, tmp_path):
    first = build_site(course.root, tmp_path / "one", progress=False, cache_dir=tmp_path / "cache-one")
    second = build_site(course.root, tmp_path / "two", progress=False, cache_dir=tmp_path / "cache-two")
    assert first.examples_executed == second.examples_executed == 2  # both really ran the examples
    assert tree_digest(tmp_path / "one") == tree_digest(tmp_path / "two")


def test_a_rebuild_with_no_change_runs_no_example_and_draws_no_figure(course):
    shutil.rmtree(course.root / ".coursegen-cache")
    cold = build_site(course.root, course.root / "_site", progress=False)
    assert cold.examples_executed == 2 and cold.figures_drawn == 2
    report = build_site(course.root, course.root / "_site", progress=False)
    assert report.examples_executed == 0
    assert report.example_processes == 0
    assert report.examples_cached == 2
    assert report.figures_drawn == 0 and report.figures_cached == 2


def test_changing_one_example_reruns_it_and_the_examples_after_it_only(course):
    build_site(course.root, course.root / "_site", progress=False)
    course.replace(ALPHA, 'print("row 1:", table[1])', 'print("row 0:", table[0])')
    report = build_site(course.root, course.root / "_site", progress=False)
    assert report.example_processes == 1
    assert report.examples_executed == 2  # block "first" runs again to rebuild the namespace
    assert "row 0: [0.1, 0.2]" in (course.root / "_site/en/alpha.html").read_text(encoding="utf-8")


def test_a_no_change_rebuild_does_not_import_torch(course):
    course.replace(
        ALPHA,
        "table = [[0.1, 0.2], [0.3, 0.4]]",
        "import torch\n          table = torch.tensor([[0.1, 0.2], [0.3, 0.4]]).tolist()",
    )
    script = (
        "import sys\n"
        "from coursegen import build, outputs\n"
        "outputs.OUTPUTS = list(outputs.SITE_OUTPUTS)\n"
        f"build.build_site({str(course.root)!r}, {str(course.root / '_site')!r}, progress=False)\n"
        "print('torch' in sys.modules)\n"
    )
    cold = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert cold.returncode == 0, cold.stderr
    warm = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert warm.returncode == 0, warm.stderr
    assert cold.stdout.strip() == "False"  # torch ran in the example's child process only
    assert warm.stdout.strip() == "False"


def test_build_command_reports_content_errors_and_exits_1(course):
    course.replace(ALPHA, "key_terms:", "key_term:")
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "build", "--root", str(course.root), "--quiet"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.startswith(course.position(ALPHA, "key_term:") + ": unknown field 'key_term'")
    assert not (course.root / "_site").exists()


def test_schema_command_writes_a_json_schema_of_lessons_and_courses(tmp_path):
    import json

    target = tmp_path / "lesson.schema.json"
    result = subprocess.run(
        [sys.executable, "-m", "coursegen", "schema", "-o", str(target)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    schema = json.loads(target.read_text())
    assert "sections" in schema["required"]
    assert schema["additionalProperties"] is False
    assert "lessons" in schema["$defs"]["Course"]["properties"]


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_real_course_builds(tmp_path, monkeypatch):
    """A full build of content/ with every output (quizzes, notebooks, decks too), whose pages stay
    small and load nothing from the network. Its cache is a copy of the repository's when there is
    one (content-hash keyed, safe to share): what .ci/run's `coursegen build` has just written cold
    is reused, since a unit written again from the same inputs is the same bytes
    (tests/site/test_incremental_build.py proves it); without one, all of it is built cold here."""
    from coursegen import build

    monkeypatch.setattr(_outputs, "OUTPUTS", ALL_OUTPUTS)  # undo the site-only fixture
    cache = tmp_path / "cache"
    if (REPO / ".coursegen-cache").is_dir():
        shutil.copytree(REPO / ".coursegen-cache", cache)
    report = build.build_site(REPO, tmp_path / "_site", progress=False, cache_dir=cache)
    assert report.lessons >= 5
    for lang in ("en", "zh"):
        for lesson in nonempty(build.load_course(REPO).lessons):
            assert (tmp_path / "_site" / lang / f"{lesson.id}.html").is_file()
    import re

    for page in (tmp_path / "_site").rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        without_figures = re.sub(r"<svg\b.*?</svg>", "", html, flags=re.S)
        assert len(without_figures.encode()) < 300 * 1024, page.name
        assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', html), page.name
        assert 'type="module"' not in html, page.name


def test_build_refuses_to_replace_a_folder_that_is_not_a_site(course):
    precious = course.root / "notes"
    precious.mkdir()
    (precious / "todo.txt").write_text("keep me")
    with pytest.raises(ContentError) as caught:
        build_site(course.root, precious, progress=False)
    assert "refusing to replace this folder" in caught.value.message
    assert (precious / "todo.txt").read_text() == "keep me"


def test_a_no_change_rebuild_parses_no_markdown(course):
    """Rendered Markdown, math checks and search text come from the cache (.coursegen-cache/memo/)."""
    script = (
        "import sys\n"
        "from coursegen import build, markdown, outputs\n"
        "outputs.OUTPUTS = list(outputs.SITE_OUTPUTS)\n"
        "if sys.argv[1] == 'forbid':\n"
        "    def no_parsing():\n"
        "        raise AssertionError('Markdown was parsed')\n"
        "    markdown.parser = no_parsing\n"
        f"build.build_site({str(course.root)!r}, {str(course.root / '_site')!r}, progress=False)\n"
    )
    first = subprocess.run([sys.executable, "-c", script, "allow"], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    before = tree_digest(course.root / "_site")
    second = subprocess.run([sys.executable, "-c", script, "forbid"], capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert tree_digest(course.root / "_site") == before


def test_json_schema_gives_each_figure_kind_its_parameters():
    from coursegen.jsonschema import lesson_json_schema

    rules = lesson_json_schema(REPO)["$defs"]["FigureBlock"]["allOf"]
    rope = next(r for r in rules if r["if"]["properties"]["figure"]["const"] == "rope_rotation")
    params = rope["then"]["properties"]["params"]
    assert params["additionalProperties"] is False
    assert params["properties"]["positions"] == {"type": "integer", "default": 8}
