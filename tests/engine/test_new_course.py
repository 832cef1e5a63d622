"""`coursegen new DIR` writes a course on another subject (vectors) that the same engine checks,
verifies, builds and grades from inside DIR, the way an instructor types the commands: nothing of
the repository's own course is needed (its exercises, solutions, checks and plugins are not read)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def coursegen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "coursegen", *args], cwd=cwd, capture_output=True, text=True, timeout=900, env=_env()
    )


def _env() -> dict:
    import os

    # The installed engine only: the course's own modules come from --root ("."), nothing from the repository.
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("new") / "vectors"
    done = coursegen("new", str(folder), cwd=folder.parent)
    assert done.returncode == 0, done.stderr
    return folder


def test_new_writes_one_of_each_part_and_a_readme_saying_what_to_edit(course):
    for part in (
        "content/course.yaml",
        "content/lessons/dot-product.yaml",
        "content/quizzes/dot-product.yaml",
        "content/plugins/quiz_answers.py",
        "content/plugins/quiz_oracles.py",
        "content/plugins/figures.py",
        "content/plugins/selfchecks.py",
        "exercises/registry.py",
        "exercises/vectors.py",
        "solutions/vectors.py",
        "solutions/mistakes/vectors.py",
        "grader/checks/test_vectors.py",
    ):
        assert (course / part).is_file(), part
    assert "NotImplementedError" in (course / "exercises" / "vectors.py").read_text()
    readme = (course / "README.md").read_text()
    assert "content/plugins/figures.py" in readme and "solutions/mistakes/<module>.py" in readme
    assert "`quiz_gate`" in readme and "content/plugins/quiz_oracles.py" in readme


def test_the_quiz_has_one_generated_question_with_its_oracle_and_the_gate_says_so(course):
    from ruamel.yaml import YAML

    quiz = YAML(typ="safe").load((course / "content" / "quizzes" / "dot-product.yaml").read_text(encoding="utf-8"))
    generated = [q["generate"]["answer"] for q in quiz["questions"] if "generate" in q]
    assert generated == ["dot_value"]
    assert '@oracle("dot_value")' in (course / "content" / "plugins" / "quiz_oracles.py").read_text(encoding="utf-8")
    gate = YAML(typ="safe").load((course / "content" / "course.yaml").read_text(encoding="utf-8"))["quiz_gate"]
    assert gate == {"min_questions": len(quiz["questions"]), "min_generated": 1}


def test_new_refuses_a_folder_that_is_not_empty(course):
    done = coursegen("new", str(course), cwd=course.parent)
    assert done.returncode == 1 and "not an empty folder" in done.stderr


def _files(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_check_verify_and_build_accept_the_new_course(course):
    for command in (["check"], ["stubs", "--check"]):
        done = coursegen(*command, cwd=course)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    before = _files(course)
    done = coursegen("verify", cwd=course)
    assert done.returncode == 0, (done.stdout, done.stderr)
    # the quiz's one generated question is proved against its oracle by hypothesis (its space is
    # over the exhaustive limit), and verify leaves no file behind: no .hypothesis/
    assert re.search(r"^  dot-value: ok \(\d+ parameter combination\(s\), hypothesis;", done.stderr, re.M), (
        done.stderr
    )  # progress: stderr
    assert not (course / ".hypothesis").exists()
    # ... but its proof cache (.coursegen-cache/verify/, the caches' folder)
    after = [p for p in _files(course) if p.parts[0] != ".coursegen-cache"]
    assert sorted(map(str, after)) == sorted(str(p) for p in before if p.parts[0] != ".coursegen-cache")
    assert (course / ".coursegen-cache" / "verify").is_dir()
    done = coursegen("build", "--quiet", cwd=course)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert (course / "_site" / "en" / "dot-product.html").is_file()
    assert (course / "_site" / "zh" / "dot-product.html").is_file()
    assert "<svg" in (course / "_site" / "en" / "dot-product.html").read_text()  # the course's own figure
    # no search_hint in its course.yaml: the search page shows the default docs/authoring.md documents
    authoring = (Path(__file__).resolve().parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    default = re.search(r'^search_hint: .*\(default "([^"]+)"\)', authoring, re.M).group(1)
    assert default in (course / "_site" / "en" / "search.html").read_text(encoding="utf-8")


def test_grade_scores_the_stub_zero_the_reference_full_and_names_the_mistake(course):
    stub = json.loads(coursegen("grade", "exercises/vectors.py", "--format", "json", cwd=course).stdout)
    assert stub["score"] == 0 and stub["max_score"] == 3
    mistaken = course / "mistaken" / "vectors.py"
    mistaken.parent.mkdir()
    mistaken.write_text("def dot(a, b):\n    return [x * y for x, y in zip(a, b)]\n")  # forgot the sum
    done = coursegen("grade", str(mistaken), "--format", "json", cwd=course)
    report = json.loads(done.stdout)
    assert report["score"] < report["max_score"]
    assert any("dot-no-sum" in t["mistakes"] for t in report["tests"]), report
