"""A second course, tests/courses/statistics (descriptive statistics), checked, verified, built and
graded by the same engine with the commands an instructor types (the installed `coursegen`, run
from inside a copy of the course or with --root): nothing of the repository's own course is needed.

Expected values come from outside the code under test: the maximum score from the `points` marks
of the course's check files (read with ast), a correct submission written here independently of
the references (torch.quantile, torch.var), a mistaken one written as a student would, and the
first course's names as committed in tests/engine/first_course_names.json (kept exact by tests/course/)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from first_course_names import KNOWN_LEFTOVERS, REPO, TOPIC_WORDS, TOPIC_WORDS_ZH, course_names, words_of
from tests.nonempty import nonempty

COURSE = REPO / "tests" / "courses" / "statistics"
COURSEGEN = Path(sys.executable).parent / "coursegen"  # the installed command
LESSONS = ("center", "spread")
HINT_EN = "the median is the mean of the two middle values of the sorted row"
HINT_ZH = "中位数是排序后两个中间值的平均"

CORRECT_CENTER = """import torch


def mean(x):
    return x.mean(dim=-1)


def median(x):
    return torch.quantile(x, 0.5, dim=-1)
"""
CORRECT_SPREAD = """import torch


def variance(x, ddof=0):
    if x.shape[-1] - ddof <= 0:
        raise ValueError("not enough values for this ddof")
    return torch.var(x, dim=-1, correction=ddof)
"""
MISTAKEN_CENTER = """import torch


def mean(x):
    return x.mean(dim=-1)


def median(x):
    return torch.median(x, dim=-1).values   # the lower middle value when the count is even
"""


def coursegen(*args: str, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(COURSEGEN), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def copy_course(dest: Path) -> Path:
    shutil.copytree(COURSE, dest, ignore=shutil.ignore_patterns("_site", ".coursegen-cache", "__pycache__"))
    return dest


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """One copy of the course, built and verified by the tests below in order."""
    return copy_course(tmp_path_factory.mktemp("second") / "statistics")


def check_points(root: Path) -> dict[str, tuple[int, bool]]:
    """check function name -> (points, hidden), from the marks of grader/checks/test_*.py."""
    found = {}
    for path in sorted((root / "grader" / "checks").glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                points, hidden = 1, False
                for decorator in node.decorator_list:
                    text = ast.unparse(decorator)
                    if text.startswith("pytest.mark.points("):
                        points = ast.literal_eval(decorator.args[0])
                    hidden = hidden or text == "pytest.mark.hidden"
                found[node.name] = (points, hidden)
    return found


# ---- the course is self-contained -----------------------------------------------------------


def test_the_course_links_and_imports_nothing_of_the_first_course():
    files = [p for p in COURSE.rglob("*") if "__pycache__" not in p.parts]
    assert not [p for p in files if p.is_symlink()], "the second course links to files outside it"
    own = {"exercises", "solutions"}
    allowed = {
        "__future__",
        "torch",
        "math",
        "dataclasses",
        "typing",
        "pytest",
        "ast",
        "importlib",
        "inspect",
        "pathlib",
        "coursegen",
        "grader",
    }
    for path in (p for p in files if p.suffix == ".py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for module in modules:
                top = module.split(".")[0]
                assert top in allowed | own, f"{path.relative_to(COURSE)} imports {module}"
                if top == "coursegen":
                    assert module == "coursegen.plugin", f"{path}: a course uses only coursegen.plugin"
                if top == "grader":  # checks use grader.checking; the registry and mistakes the contract
                    assert module in ("grader.checking", "grader.contract"), f"{path}: imports {module}"
                if top in own and module != top:  # solutions.mistakes, exercises.registry: the course's own
                    assert (COURSE / Path(*module.split("."))).with_suffix(".py").is_file() or (
                        COURSE / Path(*module.split(".")) / "__init__.py"
                    ).is_file(), f"{path} imports {module}"


def test_check_accepts_the_course_from_inside_it_and_with_root(course, tmp_path):
    inside = coursegen("check", cwd=course)
    assert inside.returncode == 0, inside.stderr
    assert "2 lesson(s), 2 quiz(zes) with 12 question(s), 3 exercise(s) and 2 check file(s)" in inside.stdout
    outside = coursegen("check", "--root", str(course), cwd=tmp_path)
    assert outside.returncode == 0 and outside.stdout == inside.stdout, outside.stderr


def test_the_committed_stubs_are_what_coursegen_stubs_generates(tmp_path):
    root = copy_course(tmp_path / "statistics")
    assert coursegen("stubs", "--check", cwd=root).returncode == 0
    for stub in ("center.py", "spread.py"):
        (root / "exercises" / stub).unlink()
    done = coursegen("stubs", "--root", str(root), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for stub in ("center.py", "spread.py"):
        written = (root / "exercises" / stub).read_text(encoding="utf-8")
        assert written == (COURSE / "exercises" / stub).read_text(encoding="utf-8")
        assert "NotImplementedError" in written and "# BEGIN SOLUTION" not in written


def test_the_quiz_minimums_are_the_course_settings(tmp_path):
    root = copy_course(tmp_path / "statistics")
    course_yaml = root / "content" / "course.yaml"
    text = course_yaml.read_text(encoding="utf-8")
    assert "quiz_gate: {min_questions: 6, min_generated: 2}" in text  # each quiz has 6, 3 of them generated
    course_yaml.write_text(
        text.replace("min_questions: 6, min_generated: 2", "min_questions: 7, min_generated: 4"), encoding="utf-8"
    )
    done = coursegen("check", cwd=root)
    assert done.returncode == 1
    for quiz in LESSONS:
        assert (
            f"content/quizzes/{quiz}.yaml:1:1: a quiz needs at least 7 questions, found 6 "
            "(quiz_gate.min_questions in content/course.yaml)"
        ) in done.stderr.splitlines(), done.stderr
        assert (
            f"content/quizzes/{quiz}.yaml:1:1: a quiz needs at least 4 generated questions, found 3 "
            "(quiz_gate.min_generated in content/course.yaml)"
        ) in done.stderr.splitlines(), done.stderr
    course_yaml.write_text(text.replace("\nquiz_gate: {min_questions: 6, min_generated: 2}", ""), encoding="utf-8")
    done = coursegen("check", cwd=root)  # without the setting: the engine's neutral defaults hold no course back
    assert done.returncode == 0 and "a quiz needs" not in done.stderr, done.stderr


# ---- verify, build, grade (each runs torch and the sandbox) -----------------------------------


@pytest.mark.slow
def test_verify_proves_every_exercise_and_every_quiz_key(course):
    done = coursegen("verify", cwd=course)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {tuple(line.split()[:2]): line for line in done.stdout.splitlines()}
    for module, subject in (("center", "reference"), ("center", "stub"), ("spread", "reference"), ("spread", "stub")):
        assert " ok " in rows[(module, subject)], rows.get((module, subject))
    mistakes = {"center": ["mean-of-everything", "median-lower-middle"], "spread": ["variance-ignores-ddof"]}
    for module, ids in nonempty(mistakes.items()):
        for mistake_id in ids:
            line = next(line for line in done.stdout.splitlines() if f"mistake {mistake_id}" in line)
            assert line.split()[0] == module and " ok " in line and "with its hint" in line, line
    quiz_yaml = {q: (course / "content" / "quizzes" / f"{q}.yaml").read_text(encoding="utf-8") for q in LESSONS}
    generated = [
        qid for q in LESSONS for qid in re.findall(r"- id: ([a-z-]+)\n(?:(?!  - id:).*\n)*?    generate:", quiz_yaml[q])
    ]
    assert len(generated) == 6
    for question in generated:
        assert re.search(rf"^  {question}: ok \(", done.stderr, re.M), question  # progress lines: stderr


@pytest.mark.slow
def test_verify_fails_when_an_oracle_disagrees_with_its_key(tmp_path):
    root = copy_course(tmp_path / "statistics")
    oracles = root / "content" / "plugins" / "quiz_oracles.py"
    text = oracles.read_text(encoding="utf-8")
    oracles.write_text(text.replace("return (n * m + v) / (n + 1)", "return (m + v) / 2"), encoding="utf-8")
    done = coursegen("verify", cwd=root)
    assert done.returncode == 1
    assert (
        "question 'mean-after-adding': the key disagrees with the oracle of 'mean_after_adding'"
        in done.stdout + done.stderr
    )


@pytest.mark.slow
def test_build_writes_both_languages_quizzes_notebooks_and_figures(course):
    done = coursegen("build", "--quiet", cwd=course)
    assert done.returncode == 0, done.stderr
    site = course / "_site"
    for lang in ("en", "zh"):
        for lesson in LESSONS:
            for page in (f"{lesson}.html", f"quiz-{lesson}.html"):
                assert (site / lang / page).is_file(), (lang, page)
            assert (site / "notebooks" / lang / f"{lesson}.ipynb").is_file()
    center_en = (site / "en" / "center.html").read_text(encoding="utf-8")
    center_zh = (site / "zh" / "center.html").read_text(encoding="utf-8")
    assert "The middle of the data: mean and median" in center_en and "数据的中心：均值与中位数" in center_zh
    for page, block in ((center_en, "mean-and-median"), ((site / "zh" / "spread.html").read_text("utf-8"), "squares")):
        figure = page[page.index(f'id="figure-{block}"') :]
        assert "<svg" in figure[:2000], block  # the course's own @figure, drawn inline
    assert "tensor([4., 6.])" in center_en  # the row-means example ran: (2+3+3+4+8)/5, (5+5+6+6+8)/5
    quiz = (site / "en" / "quiz-spread.html").read_text(encoding="utf-8")
    assert "sample variance" in quiz and "window.COURSEGEN_QUIZ" in quiz
    search = (site / "en" / "search.html").read_text(encoding="utf-8")
    assert "Type a word, e.g. median or 方差." in search  # the course's own search_hint


@pytest.mark.slow
def test_the_built_site_shows_no_word_of_the_first_course(course):
    site = course / "_site"
    if not site.is_dir():
        assert coursegen("build", "--quiet", cwd=course).returncode == 0
    forbidden = {name.lower(): what for name, what in course_names().items()}
    forbidden.update({word: "topic word" for word in TOPIC_WORDS})
    own = {"mean", "median", "variance"}  # this course's exercises (the first course has none of these names)
    assert not own & set(forbidden)
    found = []
    # assets/vendor/ holds third-party libraries verbatim (reveal.js: its notes plugin bundles a
    # Markdown tokenizer), checked against their published hashes by the slide tests, not written by us
    vendored = site / "assets" / "vendor"
    pages = (p for p in site.rglob("*") if p.is_file() and p.suffix in (".html", ".js", ".css", ".ipynb"))
    for path in sorted(p for p in pages if not p.is_relative_to(vendored)):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for word, parts in words_of(line):
                for candidate in (word, *parts):
                    if candidate.lower() in forbidden:
                        found.append(f"{path.relative_to(site)}:{number}: {candidate} ({forbidden[candidate.lower()]})")
            for word in TOPIC_WORDS_ZH:
                copied_leftover = (
                    path.parent.name == "assets" and (f"templates/assets/{path.name}", word) in KNOWN_LEFTOVERS
                )
                if word in line and not copied_leftover:
                    found.append(f"{path.relative_to(site)}:{number}: {word} (topic word)")
    assert not found, "\n".join(found[:40])
    assert "RoPE" not in "".join(p.read_text("utf-8") for p in site.rglob("*.html"))


@pytest.mark.slow
def test_notebook_self_checks_pass_with_the_references_and_wait_for_the_stubs(course, tmp_path):
    out = tmp_path / "notebooks"
    done = coursegen("notebooks", "--solutions", "-o", str(out), cwd=course)
    assert done.returncode == 0, done.stderr
    import nbformat
    from nbclient import NotebookClient

    run_in = tmp_path / "elsewhere"  # the kernel runs outside the course: a notebook needs nothing of it
    run_in.mkdir()
    expected = {"center": ("mean", "median"), "spread": ("variance",)}
    for lang, lesson, variant in (("en", "center", "-solution"), ("zh", "spread", "-solution"), ("en", "center", "")):
        notebook = nbformat.read(out / lang / f"{lesson}{variant}.ipynb", as_version=4)
        NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": str(run_in)}},
        ).execute()
        lines = [
            line
            for cell in notebook.cells
            if cell.cell_type == "code"
            for output in cell.get("outputs", [])
            for line in output.get("text", "").splitlines()
        ]
        verdicts = [line for line in lines if line.startswith(("[PASS]", "[FAIL]", "[TODO]"))]
        want = "[PASS]" if variant else "[TODO]"
        assert len(verdicts) == len(expected[lesson]) and all(v.startswith(want) for v in verdicts), verdicts
        for exercise, verdict in zip(expected[lesson], verdicts):
            assert exercise in verdict, verdicts


@pytest.mark.slow
def test_grade_gives_full_marks_partial_with_the_hint_and_zero_to_the_stub(course, tmp_path):
    points = check_points(course)
    maximum = sum(p for p, _ in points.values())
    assert maximum == 13  # 7 for center (mean 2+1, median 1+2+1), 6 for spread (2+2+1+1)
    batch = tmp_path / "batch"
    for student, files in {
        "alice": {"center.py": CORRECT_CENTER, "spread.py": CORRECT_SPREAD},
        "bob": {"center.py": MISTAKEN_CENTER, "spread.py": CORRECT_SPREAD},
        "carol": {
            name: (course / "exercises" / name).read_text(encoding="utf-8") for name in ("center.py", "spread.py")
        },
    }.items():
        (batch / student).mkdir(parents=True)
        for name, code in files.items():
            (batch / student / name).write_text(code, encoding="utf-8")
    done = coursegen("grade", str(batch), "--seed", "11", "--format", "json", cwd=course)
    assert done.returncode == 0, done.stderr
    results: dict[str, dict] = {}  # one result per file: a student's scores and checks, summed over files
    for result in json.loads(done.stdout):
        mine = results.setdefault(result["student"], {"score": 0, "max_score": 0, "tests": []})
        mine["score"] += result["score"]
        mine["max_score"] += result["max_score"]
        mine["tests"] += result["tests"]
    assert {s: (r["score"], r["max_score"]) for s, r in results.items()} == {
        "alice": (maximum, maximum),
        # torch.median takes the lower middle value: the even-count checks fail, the odd-count one passes
        "bob": (
            maximum - points["test_median_of_rows_of_even_length"][0] - points["test_median_of_a_batch_of_pairs"][0],
            maximum,
        ),
        "carol": (0, maximum),
    }
    even = next(t for t in results["bob"]["tests"] if t["name"].endswith("test_median_of_rows_of_even_length"))
    assert even["status"] == "failed" and HINT_EN in even["output"], even
    assert "median-lower-middle" in even["mistakes"]
    assert {t["name"].split("::")[-1] for t in results["alice"]["tests"]} == set(points)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_grading_workers_grade_the_course_they_are_handed_not_the_folder_they_run_in(course, tmp_path):
    """`--workers 2` from a folder that is no course: each worker process grades the --root course
    (the course is handed to it; it used to find one on its own, from its folder or sys.path)."""
    batch = tmp_path / "batch"
    for student in ("alice", "dave"):
        (batch / student).mkdir(parents=True)
        (batch / student / "center.py").write_text(CORRECT_CENTER, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = coursegen(
        "grade", str(batch), "--workers", "2", "--root", str(course), "--seed", "3", "--format", "json", cwd=elsewhere
    )
    assert done.returncode == 0, done.stderr
    center = sum(p for name, (p, _) in check_points(course).items() if "mean" in name or "median" in name)
    assert sorted((r["student"], r["score"], r["max_score"]) for r in json.loads(done.stdout)) == [
        ("alice", center, center),
        ("dave", center, center),
    ]


@pytest.mark.slow
def test_grade_in_chinese_shows_the_chinese_hint(course, tmp_path):
    submission = tmp_path / "center.py"
    submission.write_text(MISTAKEN_CENTER, encoding="utf-8")
    done = coursegen("grade", str(submission), "--lang", "zh", "--format", "json", "--root", str(course), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    points = check_points(course)
    center_max = sum(p for name, (p, _) in points.items() if name.startswith(("test_mean", "test_median")))
    assert report["max_score"] == center_max
    assert any(HINT_ZH in t["output"] for t in report["tests"]), report["tests"]


# ---- adding an exercise touches only the course's files ---------------------------------------

STD_REFERENCE = '''

def std(x: torch.Tensor, ddof: int = 0) -> torch.Tensor:
    """The standard deviation of `x` over its last dimension: the square root of its variance.

    Args:
        x: [..., n] floating tensor of measurements.
        ddof: subtracted from n in the variance's divisor.

    Returns:
        [...] tensor, in x's dtype.
    """
    # BEGIN SOLUTION
    return variance(x, ddof) ** 0.5  # [...]
    # END SOLUTION
'''
STD_CHECK = """

@pytest.mark.exercise("std")
def test_std_is_the_square_root_of_the_variance(candidate, reference, rng):
    x = torch.randn(3, 7, generator=rng) * 4
    expect_call(candidate, reference, "std", x, ddof=1)
"""
STD_SELFCHECK = """
selfchecks(SelfCheckSpec("std", cases=(
    Case(_t("sample standard deviation", "样本标准差"), "return std(torch.tensor([1.0, 3.0, 5.0]), ddof=1)"),
)))
"""
STD_LESSON_ENTRY = """  - name: std
    statement:
      en: "Implement `std(x, ddof=0)`: the square root of `variance(x, ddof)`."
      zh: "实现 `std(x, ddof=0)`：`variance(x, ddof)` 的平方根。"
"""


def documented_exercise_files() -> list[str]:
    """The files docs/instructors.md says to edit to add an exercise (its table, English part)."""
    text = (REPO / "docs" / "instructors.md").read_text(encoding="utf-8")
    section = text[text.index("**An exercise.**") : text.index("**A mistake.**")]
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


@pytest.mark.slow
def test_adding_an_exercise_touches_only_the_files_the_instructor_guide_lists(tmp_path):
    root = copy_course(tmp_path / "statistics")
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    edits = {
        "solutions/<module>.py": ("solutions/spread.py", lambda text: text + STD_REFERENCE),
        "exercises/registry.py": (
            "exercises/registry.py",
            lambda text: text.replace(
                '    Exercise("variance", "spread", "function"),\n',
                '    Exercise("variance", "spread", "function"),\n    Exercise("std", "spread", "function"),\n',
            ),
        ),
        "grader/checks/test_<module>.py": ("grader/checks/test_spread.py", lambda text: text + STD_CHECK),
        "content/plugins/selfchecks.py": ("content/plugins/selfchecks.py", lambda text: text + STD_SELFCHECK),
        "content/lessons/<lesson>.yaml": (
            "content/lessons/spread.yaml",
            lambda text: text.replace("quiz: spread\n", STD_LESSON_ENTRY + "quiz: spread\n"),
        ),
    }
    assert sorted(edits) == sorted(documented_exercise_files())
    for relative, change in edits.values():
        path = root / relative
        changed = change(path.read_text(encoding="utf-8"))
        assert changed != path.read_text(encoding="utf-8"), relative
        path.write_text(changed, encoding="utf-8")
    for command in (["stubs"], ["check"], ["verify"]):
        done = coursegen(*command, cwd=root)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert re.search(r"^spread\s+signature std\s+ok", done.stdout, re.M), done.stdout
    assert "def std(" in (root / "exercises" / "spread.py").read_text(encoding="utf-8")
    caches = {"__pycache__", ".coursegen-cache"}  # written by the commands, not by the author (verify: no .hypothesis/)
    after = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file() and not caches & set(p.parts)}
    changed = sorted(str(p) for p in after if before.get(p) != after[p])
    assert changed == sorted([relative for relative, _ in edits.values()] + ["exercises/spread.py"])
