"""Grade one Gradescope submission; always leave a valid results.json behind.

Called by run_autograder. Reads assignment.json (next to this file) for the assignment's
definition (its exercises and points: every submission is out of its maximum, whatever it
defines) and the feedback language, grades the submission in $AUTOGRADER_ROOT/submission/
with the full grader (public and hidden checks, a fresh secret seed) and writes
$AUTOGRADER_ROOT/results/results.json atomically, after the student's code has finished:
a results.json the submission might have written is deleted first and replaced last.
If the grader itself fails, the student gets score 0 with a sentence saying so, and the
traceback goes to stdout, which Gradescope shows to instructors only.

由 run_autograder 调用：评分 submission/ 中的提交，并始终写出合法的 results/results.json。
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
    "no_file": "No .ipynb or .py file was found in your submission; upload {notebook}. "
    "/ 提交中没有找到 .ipynb 或 .py 文件；请上传 {notebook}。",
    "grader_failed": "The autograder could not run on this submission; your instructor can see why. "
    "/ 自动评分器无法处理这份提交；老师可以看到原因。",
}


MAX_DEPTH = 16  # folders below submission/ that are looked into
MAX_NAMES = 10_000  # names looked at in all


def pick_submission(folder: Path) -> Path | None:
    """The lesson's notebook if present, else the first .ipynb, else the first .py (by name).
    Links are never followed (a link to /autograder/source would be graded as the student's
    code): linked folders are not entered, and a linked file is only picked, to be refused
    with its reason, when it has the lesson's notebook name or no regular file is there.
    The walk has no recursion and stops at MAX_DEPTH folders deep and MAX_NAMES names, so a
    deep or huge folder tree cannot crash the runner."""
    if not folder.is_dir() or folder.is_symlink():
        return None
    files, links = [], []
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
            elif path.suffix in SUFFIXES:
                (links if item.is_symlink() else files).append(path)
    files.sort()
    links.sort()
    preferred = [p for p in links + files if p.name == ASSIGNMENT["notebook"]]
    by_kind = [p for suffix in SUFFIXES for p in files if p.suffix == suffix]
    return (preferred or by_kind or links or [None])[0]


def zero_result(message: str) -> str:
    return json.dumps({"score": 0.0, "output": message, "tests": []}, ensure_ascii=False, indent=1)


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


def grade(path: Path, root: Path) -> str:
    course_root = shipped_course_root()
    from grader.course import Course
    from grader.running.grade import grade_submission
    from grader.reporting.reports import gradescope
    from grader.reading.submission import load_submission

    course = Course.load(course_root)
    lang = os.environ.get("COURSEGEN_LANG", ASSIGNMENT["lang"])
    submission = load_submission(path, course, lang=lang, root=root / "submission")  # no link followed below it
    result = grade_submission(
        submission,
        course=course,
        seed=secrets.randbits(62),
        lang=lang,
        exercises=tuple(ASSIGNMENT["exercises"]),
        hide=(str(root),),
    )
    if ASSIGNMENT.get(
        "definition"
    ):  # out of the assignment's maximum, with its points (grader/reporting/assignments.py)
        from grader.reporting.assignments import Definition, apply, mark

        definition = Definition.from_json(ASSIGNMENT["definition"])
        result.tests = apply(result.tests, definition)
        result.score = sum(t.score for t in result.tests)
        mark(result, definition)
    text = gradescope(result, course=course)
    json.loads(text)  # never hand Gradescope something it cannot read
    return text


def main() -> int:
    root = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    results_dir = root / "results"
    (results_dir / "results.json").unlink(missing_ok=True)
    path = pick_submission(root / "submission")
    if path is None:
        write_results(results_dir, zero_result(MESSAGES["no_file"].format(notebook=ASSIGNMENT["notebook"])))
        return 0
    try:
        text = grade(path, root)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        write_results(results_dir, zero_result(MESSAGES["grader_failed"]))
        return 2
    write_results(results_dir, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
