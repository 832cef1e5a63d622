"""The verify proof cache (grader/verifying/proof_cache.py): a change to each kind of input re-runs exactly
the proofs that depend on it, and nothing else; a cache that cannot be read is ignored.

The course is a copy of the second course (tests/courses/statistics: modules center and spread),
graded in this process by the fake sandbox (trusted fixtures); what a proof depends on is written
out below from reading that course, not from the code under test: its quiz answer function
median_of_four runs the catalogued mistakes of `median` (solutions/mistakes/center.py),
sample_variance those of `variance` (solutions/mistakes/spread.py), no other one runs a mistake;
test_spread.py calls no exercise of center and test_center.py none of spread.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from grader.verifying import proof_cache
from grader.verifying.proof_cache import ProofCache
from grader_fakes import FakeSandbox
from tests.nonempty import nonempty

COURSE = Path(__file__).resolve().parents[1] / "courses" / "statistics"

EXERCISE = {f"{m}/{g}" for m in ("center", "spread") for g in ("reference", "stub", "mistakes", "hints")}
SIGNATURES = {"center/signature", "spread/signature"}
CENTER_QUIZ = {"center/gate", "center/mean-of-four", "center/median-of-four", "center/mean-after-adding"}
SPREAD_QUIZ = {"spread/gate", "spread/population-variance", "spread/sample-variance", "spread/scaled-variance"}
EVERYTHING = EXERCISE | SIGNATURES | CENTER_QUIZ | SPREAD_QUIZ


@pytest.fixture(autouse=True)
def _forget_the_copied_course():
    """The course modules imported from a copy are forgotten afterwards (tests after these ones
    import the first course's `exercises` and `solutions` again)."""
    yield
    _forget()


def _forget() -> None:
    import sys

    from grader import checking

    for name in [m for m in sys.modules if m.split(".")[0] in ("exercises", "solutions")]:
        if str(COURSE.parent) not in (getattr(sys.modules[name], "__file__", "") or "") and "pytest-" in (
            getattr(sys.modules[name], "__file__", "") or ""
        ):
            del sys.modules[name]
    checking.mistakes_in.cache_clear()


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache"))
    return root


@pytest.fixture(scope="module")
def proven_once(tmp_path_factory):
    """The course proven once (every proof runs and passes), cache included; each test gets a copy
    (the cache holds paths relative to the course, so a copied course keeps its proofs)."""
    root = tmp_path_factory.mktemp("proven") / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache"))
    ran, rows, problems = prove(root)
    _forget()
    assert ran == EVERYTHING
    assert all(r.ok for r in rows), [r for r in rows if not r.ok]
    assert problems == []
    return root


def prove(root: Path, *, enabled: bool = True, quizzes: bool = True) -> tuple[set[str], list, list[str]]:
    """One verify run: (names of the proofs that ran, the exercise rows, the quiz problems)."""
    from coursegen.quiz.verify_cache import verify_quizzes_cached
    from grader import checking
    from grader.course import Course
    from grader.verifying.verify import verify

    # each `coursegen verify` is a new process; here the grader's memo of the catalogue is cleared
    checking.mistakes_in.cache_clear()
    cache = ProofCache(root / ".coursegen-cache" / "verify", enabled=enabled, base=root)
    rows = verify(Course.load(root), seed=1, sandbox_factory=FakeSandbox, cache=cache)
    problems = verify_quizzes_cached(root, cache) if quizzes else []
    return {name for _, name in cache.proven}, rows, problems


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def proven(proven_once, tmp_path):
    """A copy of the proven course: each test sees what its change re-runs."""
    root = tmp_path / "course"
    shutil.copytree(proven_once, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_nothing_changed_reuses_every_proof_with_the_same_rows(proven):
    first = {(r.module, r.subject, r.ok) for r in prove(proven, quizzes=False)[1]}
    ran, rows, problems = prove(proven)
    assert ran == set()
    assert {(r.module, r.subject, r.ok) for r in rows} == first
    assert problems == []


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_verify_all_ignores_the_cache(proven):
    assert prove(proven, enabled=False)[0] == EVERYTHING


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_hint_edit_re_runs_its_modules_proofs_and_the_quizzes_that_show_it(proven):
    edit(proven / "solutions" / "mistakes" / "center.py", "the lower of the two middle", "the smaller middle")
    ran, rows, problems = prove(proven)
    assert ran == {
        "center/reference",
        "center/stub",
        "center/mistakes",
        "center/hints",
        "center/gate",
        "center/median-of-four",
    }
    assert [r for r in rows if not r.ok] == [] and problems == []


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_reference_edit_re_runs_every_exercise_and_quiz_proof(proven):
    # references may import each other, and every check and answer function calls them
    edit(
        proven / "solutions" / "spread.py",
        '"""',
        '"""Edited. ',
    )
    assert prove(proven)[0] == EVERYTHING


def test_a_stub_edit_re_runs_its_stub_proof_and_the_signatures(proven):
    edit(proven / "exercises" / "center.py", '"""', '"""Edited. ')
    assert prove(proven)[0] == {"center/stub"} | SIGNATURES


def test_a_check_edit_re_runs_every_exercise_proof_but_no_quiz_proof(proven):
    # one pytest session collects the whole checks folder: any file of it may change any result
    edit(proven / "grader" / "checks" / "test_spread.py", '"""', '"""Edited. ')
    assert prove(proven)[0] == EXERCISE


def test_a_new_check_file_re_runs_every_exercise_proof(proven):
    (proven / "grader" / "checks" / "helpers.py").write_text("TOLERANCE = 1e-6\n", encoding="utf-8")
    assert prove(proven)[0] == EXERCISE


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_registry_edit_re_runs_everything(proven):
    edit(proven / "exercises" / "registry.py", '"""', '"""Edited. ')
    assert prove(proven)[0] == EVERYTHING


def test_a_plugin_edit_re_runs_the_quiz_proofs_only(proven):
    edit(proven / "content" / "plugins" / "quiz_answers.py", '"""', '"""Edited. ')
    assert prove(proven)[0] == CENTER_QUIZ | SPREAD_QUIZ


def test_a_quiz_question_edit_re_runs_its_quiz_gate_and_its_own_oracle_proof(proven):
    quiz = proven / "content" / "quizzes" / "center.yaml"
    edit(quiz, "a: {range: [1, 20]}", "a: {range: [2, 20]}")  # median-of-four's parameters
    assert prove(proven)[0] == {"center/gate", "center/median-of-four"}
    edit(quiz, "id: outlier", "id: outlier-value")  # a hand-written question: the gate only
    assert prove(proven)[0] == {"center/gate"}


def test_a_lesson_edit_re_runs_its_quiz_gate(proven):
    edit(proven / "content" / "lessons" / "spread.yaml", "id: spread", "id: spread  # edited")
    assert prove(proven)[0] == {"spread/gate"}


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_another_engine_re_runs_everything(proven, monkeypatch):
    from grader import digests

    monkeypatch.setattr(digests, "_engine", "another engine")
    assert prove(proven)[0] == EVERYTHING


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_other_library_versions_re_run_everything(proven, monkeypatch):
    monkeypatch.setattr(proof_cache, "library_versions", lambda: "torch=0.0.1")
    assert prove(proven)[0] == EVERYTHING


def test_a_failing_proof_is_never_cached(proven):
    # the stub made a working solution: its proof (every check with points fails) fails, and is
    # proven again (and fails again) on the next run
    shutil.copy(proven / "solutions" / "spread.py", proven / "exercises" / "spread.py")
    for _ in range(2):
        ran, rows, _ = prove(proven, quizzes=False)
        assert "spread/stub" in ran
        assert not next(r for r in rows if r.module == "spread" and r.subject == "stub").ok


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_text("{not json", encoding="utf-8"),
        lambda path: path.write_bytes(b"\xff\xfe\x00"),
        lambda path: path.write_text(json.dumps({**json.loads(path.read_text()), "format": "0"}), encoding="utf-8"),
        lambda path: path.write_text(json.dumps([1, 2]), encoding="utf-8"),
        lambda path: path.write_text(json.dumps({**json.loads(path.read_text()), "deps": 3}), encoding="utf-8"),
    ],
    ids=["corrupt-json", "not-utf8", "other-format", "not-an-object", "bad-deps"],
)
def test_an_unreadable_entry_is_a_miss_never_an_error(proven, damage):
    entry = proven / ".coursegen-cache" / "verify" / "reference" / "center_reference.json"
    assert entry.is_file()
    damage(entry)
    ran, rows, _ = prove(proven)
    assert ran == {"center/reference"}
    assert all(r.ok for r in nonempty(rows))
    assert json.loads(entry.read_text())["format"] == proof_cache.FORMAT  # rewritten whole


def test_a_recorded_dependency_that_changes_invalidates_the_entry(tmp_path):
    cache = ProofCache(tmp_path / "cache")
    dep = tmp_path / "data.txt"
    dep.write_text("one", encoding="utf-8")
    cache.put("kind", "name", "key", {"x": 1}, deps=[dep])
    assert cache.get("kind", "name", "key") == {"x": 1}
    assert cache.get("kind", "name", "another key") is None
    dep.write_text("two", encoding="utf-8")
    assert cache.get("kind", "name", "key") is None
    dep.unlink()
    assert cache.get("kind", "name", "key") is None


def test_an_unwritable_cache_costs_only_time(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    cache = ProofCache(blocker)
    payload, reused = cache.prove("kind", "name", "key", lambda: ({"ok": 1}, True))
    assert (payload, reused) == ({"ok": 1}, False)
    assert cache.get("kind", "name", "key") is None


def test_a_folder_digest_follows_links_and_sees_every_file(tmp_path):
    # coursegen/templates is a link to the engine's templates: an edit there must change the digest
    real = tmp_path / "real"
    real.mkdir()
    (real / "base.html").write_text("one", encoding="utf-8")
    package = tmp_path / "package"
    package.mkdir()
    (package / "templates").symlink_to(real, target_is_directory=True)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.pyc").write_bytes(b"ignored")
    before = proof_cache.digest_tree(package)
    assert [p.name for p in proof_cache.tree_files(package)] == ["base.html"]
    (real / "base.html").write_text("two", encoding="utf-8")
    assert proof_cache.digest_tree(package) != before


@pytest.mark.slow
def test_the_verify_command_reuses_proofs_imports_no_torch_when_nothing_changed_and_all_ignores_them(tmp_path):
    """The real command (its own process, the real sandbox) on a copy of the second course."""
    import os
    import re
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    root = tmp_path / "course"
    shutil.copytree(COURSE, root, ignore=shutil.ignore_patterns("__pycache__", ".coursegen-cache"))

    def verify(*extra: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "coursegen", "verify", "--root", str(root), *extra],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PYTHONPATH": str(repo)},
        )
        assert done.returncode == 0, (done.stdout, done.stderr[-3000:])
        return done

    def imported(done: subprocess.CompletedProcess) -> set[str]:
        return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*([\w.]+)$", done.stderr, re.M))

    first = verify()
    total = int(re.search(r"proof cache: (\d+) proofs, 0 reused", first.stdout).group(1))
    # and, through the real sandbox, each module's odd-value proof (grader/verifying/odd_values.py)
    assert total == len(EVERYTHING | {"center/values", "spread/values"}) and "torch" in imported(first)
    again = verify()
    assert f"proof cache: {total} proofs, {total} reused" in again.stdout
    assert "torch" not in imported(again) and "grader.sandbox.sandbox" not in imported(again)
    rows = [line for line in again.stdout.splitlines() if re.match(r"^(center|spread)\s", line)]
    assert len(rows) == len([line for line in first.stdout.splitlines() if re.match(r"^(center|spread)\s", line)])
    assert all("  ok  " in row for row in rows)
    forced = verify("--all")
    assert f"proof cache: {total} proofs, 0 reused (--all: cache not read)" in forced.stdout
