"""grader/verify.py: what `coursegen verify` proves and names (fake sandbox, local checks;
the real run is in test_grader_end_to_end.py)."""

from pathlib import Path


from grader import verify as verify_module
from grader.verify import format_table, verify
from grader_fakes import FakeSandbox

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ROOT / "tests" / "fixtures" / "grader" / "checks"


def rows_for(modules, checks=CHECKS):
    return verify(modules, seed=1, checks_dir=checks, sandbox_factory=FakeSandbox)


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
    from grader.course import current

    stub = current().module("exercises", "rope")  # the stub as the engine loads it
    monkeypatch.setattr(stub, "apply_rope", lambda x, positions=None: x)
    result = row(verify_module._signature_rows(current(), "rope", ("apply_rope",)), "signature apply_rope")
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
