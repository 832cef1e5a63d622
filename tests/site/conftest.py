"""Fixtures for the site tests: a small two-lesson course copied into a temporary folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen.errors import ContentError, ContentErrors

FIXTURES = Path(__file__).parent / "fixtures"


def site_outputs() -> list[str]:
    """The outputs of the site itself (assets, pages, search index). Other outputs (quiz pages,
    notebooks, decks) are in the same list (coursegen.outputs.OUTPUTS) and are tested with their
    own fixtures; the site tests build without them so a quiz-rule change elsewhere cannot break them."""
    from coursegen import outputs

    return list(outputs.SITE_OUTPUTS)


@pytest.fixture(autouse=True)
def only_site_outputs(monkeypatch):
    from coursegen import outputs

    monkeypatch.setattr(outputs, "OUTPUTS", site_outputs())


class Course:
    """A writable copy of a fixture course with helpers to introduce mistakes."""

    def __init__(self, root: Path):
        self.root = root

    def path(self, relative: str) -> Path:
        return self.root / relative

    def read(self, relative: str) -> str:
        return self.path(relative).read_text(encoding="utf-8")

    def replace(self, relative: str, old: str, new: str) -> None:
        text = self.read(relative)
        assert old in text, f"{old!r} not in {relative}"
        self.path(relative).write_text(text.replace(old, new, 1), encoding="utf-8")

    def position(self, relative: str, needle: str, occurrence: int = 1) -> str:
        """`relative:line:column` of the first character of `needle` in the file."""
        text = self.read(relative)
        index = -1
        for _ in range(occurrence):
            index = text.index(needle, index + 1)
        line = text.count("\n", 0, index) + 1
        column = index - (text.rfind("\n", 0, index) + 1) + 1
        return f"{relative}:{line}:{column}"

    def errors(self) -> list[str]:
        """The content errors load_course reports, as printed lines (empty when it loads)."""
        from coursegen.loader import load_course

        try:
            load_course(self.root)
        except ContentErrors as exc:
            return [str(error) for error in exc.errors]
        except ContentError as exc:
            return [str(exc)]
        return []


@pytest.fixture
def course(tmp_path: Path, built_site: Path) -> Course:
    """A fresh copy of the mini course. Its cache holds the figures already drawn for
    `built_site` (drawing is slow and tested elsewhere), but no example output."""
    root = tmp_path / "course"
    shutil.copytree(FIXTURES / "mini", root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    shutil.copytree(built_site.parent / ".coursegen-cache" / "figures", root / ".coursegen-cache" / "figures")
    return Course(root)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The mini course built once for the read-only rendering tests."""
    from unittest import mock

    from coursegen import build, outputs

    base = tmp_path_factory.mktemp("built")
    root = base / "course"
    shutil.copytree(FIXTURES / "mini", root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*"))
    with mock.patch.object(outputs, "OUTPUTS", site_outputs()):
        build.build_site(root, root / "_site", progress=False)
    return root / "_site"
