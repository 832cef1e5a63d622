"""Grade one Gradescope submission; always leave a valid results.json behind.

Called by run_autograder. Reads assignment.json (next to this file) for the assignment's
definition (its exercises and points: every submission is out of its maximum, whatever it
defines) and the feedback language, and grades the submission in $AUTOGRADER_ROOT/submission/
exactly as `coursegen grade --assignment ID` grades one student's folder: EVERY .py and .ipynb
file uploaded (in sub-folders too) is graded on the assignment's exercises, and each exercise
is scored once, from the file that scored best on it (on a tie, one that defines it, then the
first by path; the rule of
grader.reporting.assignments.combine). The full grader runs (public and hidden checks, a fresh
secret seed) and $AUTOGRADER_ROOT/results/results.json is written atomically, after the
student's code has finished: a results.json the submission might have written is deleted first
and replaced last. With no .py or .ipynb file, the student is told what the assignment expects
(its lessons' notebooks, or its module files). If the grader itself fails, the student gets
score 0 with a sentence saying so, and the traceback goes to stdout, which Gradescope shows to
instructors only.

由 run_autograder 调用：按 `coursegen grade --assignment` 的方式评分 submission/ 中的全部
.py 与 .ipynb 文件（每个练习取得分最高的文件），并始终写出合法的 results/results.json。
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ASSIGNMENT = json.loads((HERE / "assignment.json").read_text(encoding="utf-8"))
SUFFIXES = (".ipynb", ".py")

MESSAGES = {
    "no_file": "No .ipynb or .py file was found in your submission; assignment {assignment} expects "
    "{notebooks} (or the modules {modules}). "
    "/ 提交中没有找到 .ipynb 或 .py 文件；作业 {assignment} 需要 {notebooks}（或模块 {modules}）。",
    "graded_files": "Graded files: {files}. / 评分的文件：{files}。",
    "grader_failed": "The autograder could not run on this submission; your instructor can see why. "
    "/ 自动评分器无法处理这份提交；老师可以看到原因。",
}


MAX_DEPTH = 16  # folders below submission/ that are looked into
MAX_NAMES = 10_000  # names looked at in all
MAX_FILES = 64  # .py/.ipynb files graded (as grader.scaleout.batch.MAX_FILES_PER_STUDENT)


def submitted_files(folder: Path) -> list[Path]:
    """Every .py and .ipynb under `folder`, sorted by path (at most MAX_FILES). Links are never
    followed (a link to /autograder/source would be graded as the student's code): linked
    folders are not entered, and a linked file is listed only to be refused, with its reason,
    when it is read. The walk has no recursion and stops at MAX_DEPTH folders deep and
    MAX_NAMES names, so a deep or huge folder tree cannot crash the runner."""
    if not folder.is_dir() or folder.is_symlink():
        return []
    found: list[Path] = []
    pending, seen = [(folder, 0)], 0
    while pending and seen <= MAX_NAMES:
        top, depth = pending.pop()
        try:
            with os.scandir(top) as scan:
                items = list(scan)
        except OSError:
            continue
        seen += len(items)
        for item in items:
            path = Path(item.path)
            if item.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and item.name not in (".ipynb_checkpoints", "__pycache__"):
                    pending.append((path, depth + 1))
            elif path.suffix.lower() in SUFFIXES and not item.name.startswith("."):
                found.append(path)
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())[:MAX_FILES]


def nothing_usable_message() -> str:
    expects = ASSIGNMENT.get("expects", {})
    return MESSAGES["no_file"].format(
        assignment=ASSIGNMENT["assignment"],
        notebooks=", ".join(expects.get("notebooks", [])) or "-",
        modules=", ".join(expects.get("modules", [])) or "-",
    )


def zero_result(message: str) -> str:
    """Score 0 out of the assignment's maximum (in extra_data, as the graded results carry it)."""
    maximum = round(sum(float(points) for _, points in ASSIGNMENT["definition"]["exercises"]), 6)
    payload = {"score": 0.0, "output": message, "extra_data": {"max_score": maximum}, "tests": []}
    return json.dumps(payload, ensure_ascii=False, indent=1)


def write_results(results_dir: Path, text: str) -> None:
    results_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".results.", dir=results_dir)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, results_dir / "results.json")


def shipped_course_root() -> Path:
    """The course this bundle grades: package/ next to this file (exercises/, solutions/,
    grader/checks/), the very files setup.sh installed into the Python that runs this; never
    whatever course that Python may find. The engine comes from that Python (on Gradescope, the
    same package/); testing the bundle with a Python that has no engine (COURSEGEN_PYTHON=python,
    docs/instructors.md), from package/ too."""
    import importlib.util

    shipped = HERE / "package"
    if importlib.util.find_spec("grader") is None:
        sys.path.insert(0, str(shipped))
    return shipped


def grade(paths: list[Path], root: Path) -> str:
    """One result out of the assignment's maximum from every file in `paths`, as the local batch
    grades a student folder with --assignment (grader.scaleout.batch, then combine)."""
    course_root = shipped_course_root()
    from grader.course import Course
    from grader.reading.submission import load_submission
    from grader.reporting.assignments import Definition, apply, combine, mark
    from grader.reporting.reports import gradescope
    from grader.running.grade import grade_submissions, result_from
    from grader.scaleout.batch import against_assignment

    course = Course.load(course_root)
    lang = os.environ.get("COURSEGEN_LANG", ASSIGNMENT["lang"])
    definition = Definition.from_json(ASSIGNMENT["definition"])
    folder = root / "submission"
    names = [p.relative_to(folder).as_posix() for p in paths]
    submissions = [load_submission(p, course, root=folder) for p in paths]  # no link followed below it
    for submission in submissions:
        against_assignment(submission, definition)
    outcomes: dict[int, list] = {}
    grade_submissions(
        list(enumerate(submissions)),
        lambda index, found: outcomes.__setitem__(index, found),
        course=course,
        seed=secrets.randbits(62),
        lang=lang,
        prestart_sandbox=any(not s.fatal for s in submissions),
        hide=(str(root),),
    )
    results = []
    for index, (name, submission) in enumerate(zip(names, submissions)):
        result = result_from(
            submission, apply(outcomes.get(index, []), definition), student="submission", name=name, lang=lang
        )
        results.append(mark(result, definition))
    result = combine("submission", results, definition)
    if len(names) > 1:
        result.problems.insert(0, MESSAGES["graded_files"].format(files=", ".join(names)))
    text = gradescope(result, course=course)
    json.loads(text)  # never hand Gradescope something it cannot read
    return text


def main() -> int:
    root = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    results_dir = root / "results"
    (results_dir / "results.json").unlink(missing_ok=True)
    paths = submitted_files(root / "submission")
    if not paths:
        write_results(results_dir, zero_result(nothing_usable_message()))
        return 0
    try:
        text = grade(paths, root)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        write_results(results_dir, zero_result(MESSAGES["grader_failed"]))
        return 2
    write_results(results_dir, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
