"""grader.atomic: the one temp-then-rename helper of the engine."""

from __future__ import annotations

import pytest

from grader.atomic import replace_folder, staged_file, staged_folder, write_atomically


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


def test_staged_folder_replaces_the_old_folder_with_what_the_block_wrote(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "old.html").write_text("old")
    with staged_folder(out, label="building") as staging:
        assert staging.parent == tmp_path and staging.name.startswith(".site.building-")
        (staging / "new.html").write_text("new")
        assert (out / "old.html").exists()  # nothing changes until the block ends
    assert [p.name for p in out.iterdir()] == ["new.html"]
    assert out.stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_failing_block_leaves_the_old_folder_and_no_staging(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "old.html").write_text("old")
    with pytest.raises(RuntimeError, match="half way"):
        with staged_folder(out) as staging:
            (staging / "new.html").write_text("new")
            raise RuntimeError("half way")
    assert [p.name for p in out.iterdir()] == ["old.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_staged_folder_keeps_mkdtemps_private_mode_when_asked(tmp_path):
    with staged_folder(tmp_path / "export", mode=None) as staging:
        (staging / "a.txt").write_text("a")
    assert (tmp_path / "export").stat().st_mode & 0o777 == 0o700


def test_staged_file_moves_a_file_written_by_other_means_onto_the_target(tmp_path):
    import sqlite3

    target = tmp_path / "book.sqlite"
    target.write_bytes(b"old")
    with staged_file(target, companions=("-wal", "-shm")) as partial:
        assert not partial.exists() and partial.parent == tmp_path
        with sqlite3.connect(partial) as db:
            db.execute("CREATE TABLE t (x)")
        db.close()
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]
    db.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.sqlite"]


def test_a_failed_staged_file_removes_the_temporary_and_its_companions(tmp_path):
    target = tmp_path / "book.sqlite"
    with pytest.raises(ValueError):
        with staged_file(target, companions=("-wal", "-shm")) as partial:
            for name in (partial, f"{partial}-wal", f"{partial}-shm"):
                open(name, "w").close()
            raise ValueError("broken")
    assert list(tmp_path.iterdir()) == []
