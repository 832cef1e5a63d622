"""`coursegen build` writes the student notebooks its lesson pages link to, and no solutions."""

from __future__ import annotations

import re
import shutil

import pytest

from .nbhelpers import FIXTURE_COURSE, PROJECT_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    from coursegen.build import build_site

    root = tmp_path_factory.mktemp("course") / "course"
    shutil.copytree(FIXTURE_COURSE, root)
    shutil.copytree(PROJECT_ROOT / "templates", root / "templates")
    build_site(root, root / "_site", progress=False)
    return root / "_site"


def test_every_notebook_link_on_the_site_points_at_a_built_notebook(built_site):
    links = set()
    for page in built_site.rglob("*.html"):
        for href in re.findall(r'href="([^"]+\.ipynb)"', page.read_text(encoding="utf-8")):
            links.add((page.parent / href).resolve())
    assert links, "no page links a notebook"
    assert all(path.is_file() for path in links), sorted(str(p) for p in links if not p.is_file())


def test_the_default_build_publishes_no_solution_notebook(built_site):
    notebooks = sorted(str(p.relative_to(built_site)) for p in built_site.rglob("*.ipynb"))
    assert notebooks == ["notebooks/en/fixture-lesson.ipynb", "notebooks/zh/fixture-lesson.ipynb"]
