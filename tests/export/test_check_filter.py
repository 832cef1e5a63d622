"""coursegen.exports.package: which checks ship to students (public ones of the lesson only)."""

from __future__ import annotations

import ast
import textwrap

from coursegen.exports.package import check_definitions, public_checks_source

CHECKS = textwrap.dedent("""\
    import pytest


    def _helper(rng):
        return 1


    @pytest.mark.exercise("apply_rope")
    def test_rope_public(candidate, long_x):
        assert _helper(None) == long_x


    _SECRET_BASES = [12345.0, 777.0]


    @pytest.fixture
    def long_x():
        return 1


    def _secret_helper():
        return _SECRET_BASES


    @pytest.mark.exercise("apply_rope")
    @pytest.mark.points(3)
    @pytest.mark.hidden
    def test_rope_secret_long_positions(candidate):
        secret_positions = [4096, 8191]
        assert secret_positions and _secret_helper()


    @pytest.mark.exercise("alibi_bias")
    def test_alibi_public(candidate):
        assert True
    """)


def write(tmp_path, text, name="test_rope.py"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_definitions_know_each_checks_exercise_and_visibility(tmp_path):
    found = {d.name: (d.exercise, d.hidden) for d in check_definitions(write(tmp_path, CHECKS))}
    assert found == {
        "test_rope_public": ("apply_rope", False),
        "test_rope_secret_long_positions": ("apply_rope", True),
        "test_alibi_public": ("alibi_bias", False),
    }


def test_hidden_checks_are_removed_with_their_decorators_and_body(tmp_path):
    text = public_checks_source(write(tmp_path, CHECKS), {"apply_rope", "alibi_bias"})
    assert "test_rope_secret_long_positions" not in text
    assert "secret_positions" not in text and "points(3)" not in text
    assert "test_rope_public" in text and "test_alibi_public" in text
    ast.parse(text)


def test_checks_of_exercises_outside_the_lesson_are_removed(tmp_path):
    text = public_checks_source(write(tmp_path, CHECKS), {"apply_rope"})
    assert "test_alibi_public" not in text and "test_rope_public" in text


def test_helpers_and_fixtures_of_public_checks_stay_those_of_hidden_checks_go(tmp_path):
    text = public_checks_source(write(tmp_path, CHECKS), {"apply_rope", "alibi_bias"})
    assert "def _helper" in text and "def long_x" in text and "@pytest.fixture" in text
    assert "_secret_helper" not in text and "_SECRET_BASES" not in text and "12345" not in text
    ast.parse(text)


def test_a_module_with_nothing_to_ship_gives_none(tmp_path):
    assert public_checks_source(write(tmp_path, CHECKS), {"encode"}) is None


def test_a_module_wide_hidden_mark_hides_every_check(tmp_path):
    text = (
        'import pytest\npytestmark = [pytest.mark.exercise("apply_rope"), pytest.mark.hidden]\n\n\n'
        "def test_a(candidate):\n    pass\n"
    )
    assert public_checks_source(write(tmp_path, text), {"apply_rope"}) is None
