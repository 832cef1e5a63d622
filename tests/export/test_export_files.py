"""coursegen.exports.files: deterministic zips, atomic output folders."""

from __future__ import annotations

import zipfile

import pytest

from coursegen.exports.files import EXPORT_MARKER, ExportError, deterministic_zip, staged_directory


def make_tree(root):
    (root / "b").mkdir(parents=True)
    (root / "b" / "z.txt").write_text("z")
    (root / "a.txt").write_text("a")
    (root / "run").write_text("#!/bin/sh\n")
    return root


def test_zipping_the_same_tree_twice_gives_identical_bytes(tmp_path):
    tree = make_tree(tmp_path / "tree")
    deterministic_zip(tree, tmp_path / "one.zip")
    (tree / "a.txt").touch()  # a newer mtime must not change the archive
    deterministic_zip(tree, tmp_path / "two.zip")
    assert (tmp_path / "one.zip").read_bytes() == (tmp_path / "two.zip").read_bytes()


def test_zip_entries_are_sorted_with_fixed_timestamps_and_named_executables(tmp_path):
    tree = make_tree(tmp_path / "tree")
    deterministic_zip(tree, tmp_path / "out.zip", executables={"run"})
    with zipfile.ZipFile(tmp_path / "out.zip") as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == ["a.txt", "b/z.txt", "run"]
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in infos}
    assert modes == {"a.txt": 0o644, "b/z.txt": 0o644, "run": 0o755}


def test_a_staged_folder_appears_only_when_the_block_succeeds(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with staged_directory(out) as staging:
            (staging / "half.txt").write_text("half")
            raise RuntimeError("boom")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_an_earlier_export_is_replaced_whole(tmp_path):
    out = tmp_path / "out"
    with staged_directory(out) as staging:
        (staging / "old.txt").write_text("old")
    with staged_directory(out) as staging:
        (staging / "new.txt").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == sorted([EXPORT_MARKER, "new.txt"])


def test_a_folder_with_someone_elses_files_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    with pytest.raises(ExportError, match="not written by coursegen export"):
        with staged_directory(out):
            pass
    assert (out / "thesis.tex").read_text() == "precious"
