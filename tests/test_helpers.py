"""The tests' own helpers: tests/nonempty.py and tests/cli.py do what the tests rely on."""

from __future__ import annotations

import pytest

from tests.cli import run_cli
from tests.nonempty import nonempty


def test_a_loop_over_an_empty_collection_fails_naming_what_was_missing():
    with pytest.raises(AssertionError, match="no pages"):
        for _ in nonempty([], "pages"):
            pass
    with pytest.raises(AssertionError, match="no rows"):
        all(row for row in nonempty(iter(()), "rows"))


def test_nonempty_yields_every_item_lazily_and_passes():
    taken = []

    def numbers():
        for n in range(3):
            taken.append(n)
            yield n

    items = nonempty(numbers(), "numbers")
    assert next(items) == 0 and taken == [0]  # one at a time: a generator opening a page per item stays lazy
    assert list(items) == [1, 2] and taken == [0, 1, 2]


def test_run_cli_runs_the_command_in_this_process_and_checks_its_exit_status(tmp_path):
    ran = run_cli("grade", tmp_path / "absent.py", cwd=tmp_path)
    assert ran.exit_code == ran.returncode == 2 and ran.stdout == "" and ran.stderr
    with pytest.raises(AssertionError, match="expected exit 0"):
        run_cli("grade", tmp_path / "absent.py", expect=0)
    assert "Usage: coursegen" in run_cli("--help", expect=0).stdout
