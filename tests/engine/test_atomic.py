"""grader.atomic: the one temp-then-rename helper of the engine."""

from __future__ import annotations

import pytest

from grader.atomic import replace_folder, write_atomically


def test_write_atomically_writes_text_as_utf8_with_the_given_mode(tmp_path):
    path = write_atomically(tmp_path / "sub" / "out.txt", "π\n", mode=0o640)
    assert path.read_bytes() == "π\n".encode()
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("grader.atomic.os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_replace_folder_swaps_in_the_new_folder_and_removes_the_old(tmp_path):
    out, staging = tmp_path / "site", tmp_path / ".staging"
    out.mkdir()
    (out / "old.html").write_text("old")
    staging.mkdir()
    (staging / "new.html").write_text("new")
    replace_folder(out, staging)
    assert [p.name for p in out.iterdir()] == ["new.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_replace_folder_puts_the_old_folder_back_when_the_new_one_cannot_move(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "old.html").write_text("old")
    with pytest.raises(OSError):
        replace_folder(out, tmp_path / "missing-staging")
    assert (out / "old.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
