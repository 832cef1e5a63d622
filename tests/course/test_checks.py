"""The grader checks, run in-process on trusted code through the grader's own driver
(grader.running.session.run_session): the references pass, correct submissions written differently pass,
stubs fail every check with points, and every catalogued mistake fails a check that shows its hint.
(`coursegen verify` proves the same through the real sandbox.)"""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest
import torch

from tests.first_course import COURSE, BY_NAME, EXERCISES, MODULES, exercises_in
from grader.running.session import Job, check_info, run_session
from grader.running.trusted import trusted_namespace
from tests.first_course import catalogue

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "fixtures" / "submissions"
CHECKS_DIR = ROOT / "grader" / "checks"
SEEDS = (11, 2024, 987654321)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Many tiny tensor ops: threads only add contention (a busy 2-core machine runs 10x slower)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _load(path: Path) -> types.SimpleNamespace:
    """A trusted fixture file as a namespace of its public names."""
    namespace: dict = {"__name__": path.stem}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return types.SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("_")})


def _grade(jobs: list[Job], seed: int) -> dict:
    results: dict = {}
    run_session(
        jobs, lambda job, outcomes: results.__setitem__(job.key, outcomes), seed=seed, reveal_hidden=True, course=COURSE
    )
    return results


def _module_job(key, module: str, namespace) -> Job:
    return Job(key=key, exercises=tuple(e.name for e in exercises_in(module)), trusted=namespace)


def _correct_jobs() -> list[Job]:
    jobs = [Job(key="solutions", exercises=tuple(BY_NAME), trusted=trusted_namespace(COURSE, "solutions"))]
    jobs += [_module_job(f"correct/{m}", m, _load(SUBMISSIONS / "correct" / f"{m}.py")) for m in MODULES]
    jobs += [_module_job(f"loops/{p.stem}", p.stem, _load(p)) for p in sorted((SUBMISSIONS / "loops").glob("*.py"))]
    jobs.append(_module_job("renamed", "rope", _load(SUBMISSIONS / "renamed" / "smith_123_rope-1.py")))
    return jobs


@pytest.fixture(scope="module")
def first_seed_results() -> dict:
    """One grading session: references, correct submissions, stubs and every mistake."""
    jobs = _correct_jobs()
    jobs += [_module_job(f"stub/{m}", m, _load(ROOT / "exercises" / f"{m}.py")) for m in MODULES]
    jobs += [_module_job(m.id, m.module, trusted_namespace(COURSE, f"mistake:{m.id}")) for m in catalogue()]
    return _grade(jobs, seed=SEEDS[0])


@pytest.fixture(scope="module")
def checks() -> list:
    items = []

    class Keep:
        def pytest_collection_finish(self, session):
            items.extend(session.items)

    pytest.main(
        [
            str(CHECKS_DIR),
            "-p",
            "grader.running.pytest_plugin",
            "--collect-only",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:terminal",
            "--import-mode=importlib",
            f"--rootdir={CHECKS_DIR.parent}",
            "-o",
            "addopts=",
        ],
        plugins=[Keep()],
    )
    return [check_info(item, COURSE.registry) for item in items]


def test_every_exercise_has_a_public_check_and_some_checks_are_hidden(checks):
    public = {c.exercise for c in checks if not c.hidden}
    assert [e.name for e in EXERCISES if e.name not in public] == []
    assert any(c.hidden for c in checks)
    assert all(c.points >= 1 for c in checks)


def test_check_names_say_what_they_check(checks):
    assert len(checks) >= 3 * len(EXERCISES)
    for check in checks:
        name = check.item.name
        assert name.startswith("test_") and len(name.split("_")) >= 4, name


def _failures(results: dict, keys) -> dict:
    return {
        key: [(o.name, o.output) for o in results[key] if not o.passed]
        for key in keys
        if any(not o.passed for o in results[key])
    }


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_references_pass_every_check(first_seed_results):
    assert _failures(first_seed_results, ["solutions"]) == {}


def test_correct_submissions_written_differently_pass_every_check(first_seed_results):
    assert _failures(first_seed_results, [j.key for j in _correct_jobs()]) == {}


@pytest.mark.parametrize("seed", SEEDS[1:])
def test_references_and_correct_submissions_pass_with_other_seeds(seed):
    jobs = _correct_jobs()
    assert _failures(_grade(jobs, seed), [j.key for j in jobs]) == {}


def test_stubs_fail_every_check_with_points(first_seed_results):
    outcomes = [o for m in MODULES for o in first_seed_results[f"stub/{m}"]]
    assert len(outcomes) == len(first_seed_results["solutions"])
    assert [o.name for o in outcomes if o.passed and o.max_score > 0] == []
    assert all("NotImplementedError" in o.output for o in outcomes)


@pytest.mark.parametrize("mistake", catalogue(), ids=lambda m: m.id)
def test_mistake_fails_a_check_of_its_exercise(mistake, first_seed_results):
    failed = [o for o in first_seed_results[mistake.id] if not o.passed]
    assert any(o.exercise == mistake.target for o in failed), f"{mistake.id} passes every check of {mistake.target}"


@pytest.mark.parametrize("mistake", catalogue(), ids=lambda m: m.id)
def test_mistake_feedback_shows_its_hint(mistake, first_seed_results):
    outputs = [o.output for o in first_seed_results[mistake.id] if not o.passed]
    assert any(mistake.hint["en"] in output for output in outputs), outputs


def test_feedback_names_the_first_wrong_index_and_the_max_error(first_seed_results):
    outputs = [o.output for o in first_seed_results["rope-clockwise"] if not o.passed]
    assert any(re.search(r"wrong at index \[\d+(, \d+)*\].*max abs error", o) for o in outputs), outputs
