"""grader/verifying/odd_values.py: verify proves that no shape of student value reaches check_error.

A copy of the small numerics course (tests/courses/numerics) gets one more check with a real fault
that only an odd value triggers: it calls `float()` on the student's answer itself. The reference's
answer is a float, so the check passes on the reference and the session would forgive it for a
student (re-run on the reference, "unusable value"); verify's odd-value probes must name it, at its
line, with the value kind. The check as the course should write it (comparing through the engine)
passes the same probes. Fast: the stand-in sandbox runs the trusted probes in this process; the
first course through the real sandbox is tests/grader/test_grader_end_to_end.py (slow)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.course import Course
from grader.verifying import odd_values
from grader.verifying.verify import verify
from grader_fakes import FakeSandbox

NUMERICS = Path(__file__).resolve().parents[1] / "courses" / "numerics"

FAULTY = '''"""A check with a real fault: it converts the student's answer itself."""
import math

import pytest


@pytest.mark.exercise("trapezoid")
def test_trapezoid_of_sin_to_six_places(candidate, reference):
    expected = reference.trapezoid(math.sin, 0.0, 1.0, 8)
    answer = candidate.trapezoid(math.sin, 0.0, 1.0, 8)
    assert round(float(answer), 6) == round(expected, 6), "wrong area"
'''
FAULTY_LINE = 11  # the line of float(answer) above

SOUND = '''"""The same check, comparing through the engine: any answer is compared, with a message."""
import math

import pytest

from grader.checking import expect_call


@pytest.mark.exercise("trapezoid")
def test_trapezoid_of_sin_to_six_places(candidate, reference):
    expect_call(candidate, reference, "trapezoid", math.sin, 0.0, 1.0, 8)
'''

KINDS = ("huge-int", "none", "string", "nan", "float64")


def course_with(tmp_path: Path, check: str) -> Course:
    root = tmp_path / "numerics"
    shutil.copytree(NUMERICS, root)
    (root / "grader" / "checks" / "test_extra.py").write_text(check, encoding="utf-8")
    return Course.load(root)


def values_rows(course: Course) -> list:
    rows = verify(course, ["quadrature"], seed=5, sandbox_factory=FakeSandbox, odd_values=KINDS)
    assert [r.subject for r in rows if not r.ok and r.subject != "values"] == []  # the rest of the course holds
    return [r for r in rows if r.subject == "values"]


def test_a_check_that_breaks_on_an_odd_value_fails_verify_at_its_line_naming_the_value(tmp_path):
    (row,) = values_rows(course_with(tmp_path, FAULTY))
    assert not row.ok
    assert f"grader/checks/test_extra.py:{FAULTY_LINE}" in row.detail
    assert "test_trapezoid_of_sin_to_six_places" in row.detail
    assert "huge-int (the int 10**400)" in row.detail and "OverflowError" in row.detail
    assert "none (None)" in row.detail and "string (a string)" in row.detail
    assert "float64" not in row.detail  # a float answer converts: only the odd values are named


def test_the_same_check_comparing_through_the_engine_passes_every_probe(tmp_path):
    (row,) = values_rows(course_with(tmp_path, SOUND))
    assert row.ok, row.detail
    assert row.detail.startswith(f"{len(KINDS)} odd values x ")


def test_each_probe_defines_every_exercise_and_returns_its_kind():
    course = Course.load(NUMERICS)
    kinds = odd_values.kinds_for(course)
    assert "huge-int" in kinds and "module" not in kinds  # no torch in this course: no tensor kinds
    for kind, expected in (("huge-int", 10**400), ("none", None), ("tuple", (1, 2))):
        namespace: dict = {}
        exec(compile(odd_values.probe_source(course, ["quadrature"], kind), "odd_values.py", "exec"), namespace)
        assert namespace["trapezoid"](abs, 0.0, 1.0, 4) == expected
    namespace = {}
    exec(compile(odd_values.probe_source(course, ["quadrature"], "float32"), "odd_values.py", "exec"), namespace)
    assert namespace["trapezoid"](lambda x: x, 0.0, 1.0, 4) == pytest.approx(0.5)  # the reference's answer


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown odd value 'huge'"):
        odd_values.probe_source(Course.load(NUMERICS), ["quadrature"], "huge")


# ---- the faults the probes found in the engine (each failed before its fix) ----------------------


def test_the_fingerprint_of_a_huge_whole_number_is_infinite_not_an_overflow():
    from grader.fingerprint import fingerprint, parse

    for value in (10**400, -(10**400), [10**400, 1], ([-(10**400)],)):
        assert parse(fingerprint("wrong", value)) is not None


def test_a_scenario_that_breaks_on_the_students_object_fails_the_student_with_a_message():
    import types

    from grader import checking
    from grader.checking import CheckFailure, expect_behaviour
    from grader.running.trusted import TrustedCandidate

    class Answer:
        def __init__(self, value):
            self.value = value

        def __call__(self):
            return self.value

    def scenario(make):
        return list(make(3)().shape)  # check code that reads .shape of what the object gave

    reference = types.SimpleNamespace(Answer=lambda n: Answer(__import__("numpy").zeros(n)))
    candidate = TrustedCandidate(types.SimpleNamespace(Answer=lambda n: Answer(10**400)))
    checking.set_language("en")
    with pytest.raises(CheckFailure, match=r"Answer returned a value the check cannot use.*AttributeError"):
        expect_behaviour(candidate, reference, "Answer", scenario)

    broken = types.SimpleNamespace(Answer=lambda n: Answer(None))  # the check fails on the reference too:
    with pytest.raises(AttributeError):  # a real fault of the check, left to be check_error
        expect_behaviour(candidate, broken, "Answer", scenario)


@pytest.mark.slow
def test_the_first_course_capstone_fails_every_odd_value_with_a_message_through_the_real_sandbox():
    """The class exercise whose scenarios broke on 10**400 before expect_behaviour's fix."""
    from tests.first_course import COURSE

    rows = verify(COURSE, ["capstone"], seed=7)
    (row,) = [r for r in rows if r.subject == "values"]
    assert row.ok, row.detail
    assert row.detail.startswith(f"{len(odd_values.kinds_for(COURSE))} odd values x ")
    assert len(odd_values.kinds_for(COURSE)) == len(odd_values.KINDS)  # torch course: every kind
    assert all(r.ok for r in rows), [r for r in rows if not r.ok]


def test_verify_progress_says_when_the_probes_are_graded(monkeypatch):
    import io
    import sys

    from coursegen.commands.verify import VerifyProgress

    stream = io.StringIO()
    monkeypatch.setattr(sys, "__stderr__", stream)
    with VerifyProgress() as progress:
        progress.values("huge-int", 1, 2)
        progress.values("none", 2, 2)
    assert [line.split(" (")[0] for line in stream.getvalue().splitlines()] == [
        "verify: 2 odd-value probe(s) graded over every check"
    ]


def test_a_probe_that_never_reaches_a_check_fails_the_proof():
    from grader.reporting.results import CheckResult

    def result(problem, output="", status="failed"):
        return CheckResult("test_x", "trapezoid", 0.0, 1.0, status, output=output, problem=problem)

    found = odd_values.faults(
        {
            "none": [result("import_raised", "NameError: name 'x' is not defined")],
            "string": [result("missing", "trapezoid is not defined")],
            "tuple": [result("", "wrong area")],
            "dict": [result("", "")],
        }
    )
    assert found == [
        "the none probe reached no check: NameError: name 'x' is not defined",
        "the string probe reached no check: trapezoid is not defined",
        "test_x fails dict (a dict) without a message",
    ]


def test_the_values_proof_is_cached_and_re_run_by_a_check_or_reference_edit_not_a_hint_edit(tmp_path):
    from grader import checking
    from grader.verifying.proof_cache import ProofCache

    root = course_with(tmp_path, SOUND).root

    def ran() -> set[str]:
        checking.mistakes_in.cache_clear()  # each verify is a new process
        Course.forget(root)
        cache = ProofCache(root / ".coursegen-cache" / "verify", enabled=True, base=root)
        rows = verify(Course.load(root), seed=1, sandbox_factory=FakeSandbox, cache=cache, odd_values=KINDS)
        assert [r for r in rows if not r.ok] == []
        assert {r.module for r in rows if r.subject == "values"} == {"quadrature", "running"}
        return {name for _, name in cache.proven}

    assert {"quadrature/values", "running/values"} <= ran()
    assert ran() == set()
    catalogue = root / "solutions" / "mistakes" / "quadrature.py"
    catalogue.write_text(catalogue.read_text(encoding="utf-8").replace("hint={", "hint={  ", 1), encoding="utf-8")
    after_hint = ran()
    assert "quadrature/mistakes" in after_hint and "quadrature/values" not in after_hint  # no mistake runs on a probe
    reference = root / "solutions" / "quadrature.py"
    reference.write_text(reference.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert {"quadrature/values", "running/values"} <= ran()  # checks call every reference
