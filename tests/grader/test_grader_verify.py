"""grader/verifying/verify.py: what `coursegen verify` proves and names (fake sandbox, local checks;
the real run is in test_grader_end_to_end.py)."""

from pathlib import Path


from grader.verifying import verify as verify_module
from grader.verifying.verify import format_table, verify
from grader_fakes import FakeSandbox
from tests.first_course import COURSE

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"


def rows_for(modules, checks=CHECKS):
    return verify(COURSE, modules, seed=1, checks_dir=checks, sandbox_factory=FakeSandbox)


def row(rows, subject):
    return next(r for r in rows if r.subject == subject)


def test_reference_and_stub_of_a_module_verify():
    rows = rows_for(["rope"])
    assert row(rows, "reference").ok and row(rows, "stub").ok
    assert row(rows, "signature apply_rope").ok


def test_caught_mistake_shows_its_hint():
    result = row(rows_for(["rope"]), "mistake rope-half-split")
    assert result.ok and "with its hint" in result.detail


def test_check_that_fails_on_the_reference_is_named(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_bad.py").write_text(
        "import pytest\n\n@pytest.mark.exercise('apply_rope')\ndef test_expects_nonsense(candidate):\n"
        "    assert candidate.apply_rope(__import__('torch').zeros(1, 1, 1, 2)).sum() == 42\n"
    )
    result = row(rows_for(["rope"], checks), "reference")
    assert not result.ok and "test_expects_nonsense fails on the reference" in result.detail


def test_mistake_the_checks_do_not_catch_is_named(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_weak.py").write_text(
        "import pytest\n\n@pytest.mark.exercise('apply_rope')\ndef test_only_shape(candidate):\n"
        "    assert candidate.apply_rope(__import__('torch').zeros(1, 1, 3, 4)).shape == (1, 1, 3, 4)\n"
    )
    rows = rows_for(["rope"], checks)
    uncaught = [r for r in rows if r.subject.startswith("mistake") and not r.ok]
    assert uncaught and all("not caught" in r.detail for r in uncaught)


def test_check_that_passes_on_the_stub_is_named(tmp_path):
    checks = tmp_path / "checks"
    checks.mkdir()
    (checks / "test_free.py").write_text(
        "import pytest\n\n@pytest.mark.exercise('apply_rope')\ndef test_free_points(candidate):\n    pass\n"
    )
    result = row(rows_for(["rope"], checks), "stub")
    assert not result.ok and "test_free_points passes on the stub" in result.detail


def test_signature_mismatch_between_stub_and_solution_is_named(monkeypatch):
    stub = COURSE.module("exercises", "rope")  # the stub as the engine loads it
    monkeypatch.setattr(stub, "apply_rope", lambda x, positions=None: x)
    result = row(verify_module._signature_rows(COURSE, "rope", ("apply_rope",)), "signature apply_rope")
    assert not result.ok and "stub (x, positions=None)" in result.detail


def test_mistake_source_is_the_decorated_definition_even_for_repeated_class_names():
    from tests.first_course import catalogue

    tied = [m for m in catalogue("lm_head") if m.target == "TiedLM"]
    sources = {m.source for m in tied}
    assert len(sources) == len(tied) and all(s.startswith("class TiedLM") for s in sources)


def test_table_lists_every_row():
    rows = rows_for(["tokens"])
    table = format_table(rows)
    assert len(table.splitlines()) == len(rows) + 2
    assert table.splitlines()[0].split()[:3] == ["module", "subject", "result"]


def _failed(check: str, *mistakes: str):
    from grader.reporting.results import CheckResult

    return CheckResult(check, "dot", 0.0, 1.0, "failed", mistakes=list(mistakes))


def test_the_hints_proof_allows_a_shared_hint_only_for_a_mistake_some_check_names_alone():
    """Two mistakes with the same output on one check's inputs both explain it (both hints are
    shown); a mistake no check tells apart from another, or a hint on the reference, fails."""
    from types import SimpleNamespace

    from grader.verifying.verify import hints_name_only_their_mistake

    a, b = SimpleNamespace(id="a", target="dot"), SimpleNamespace(id="b", target="dot")
    expectations = {0: ("m", "mistake a", a), 1: ("m", "mistake b", b)}
    told_apart = {
        0: [_failed("test_one", "a", "b"), _failed("test_two", "a")],
        1: [_failed("test_one", "a", "b"), _failed("test_three", "b")],
    }
    assert [row.ok for row in hints_name_only_their_mistake(expectations, told_apart)] == [True]
    never_apart = {0: [_failed("test_one", "a", "b")], 1: [_failed("test_one", "b"), _failed("test_two", "b")]}
    (row,) = hints_name_only_their_mistake(expectations, never_apart)
    assert not row.ok and row.detail == "mistake a shows the hint of b in test_one"
    (row,) = hints_name_only_their_mistake({0: ("m", "reference", None)}, {0: [_failed("test_one", "a")]})
    assert not row.ok and "reference shows the hint of a in test_one" in row.detail
