"""Issue 34, item 4: a submission that loops forever is stopped once per exercise, not once per
check, and the student reads why. Graded in one real session (sandbox included) on the small
numerics course with `limits: {call_seconds: 1}`: the looping `trapezoid` runs out of time in its
first check only, its other checks (a hidden one among them) fail at once with a sentence saying
so (en and zh), and the other exercise is graded as usual. The same session with the memory
switched off (`TIME_PROBLEMS = ()`) is the oracle: every check of a correct or merely wrong
submission scores the same, and the loop costs the limit once per check there."""

from __future__ import annotations

import pytest

from .course import WRONG_RUNNING, make_term_course, solution_module

pytestmark = pytest.mark.slow

LOOPING_TRAPEZOID = '''\
def trapezoid(f, a, b, n):
    """Never returns."""
    while True:
        pass
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from grader.course import Course

    folder = tmp_path_factory.mktemp("loops")
    root = make_term_course(folder / "numerics", "limits: {call_seconds: 1}\n")
    quadrature, running = solution_module(root, "quadrature"), solution_module(root, "running")
    files = {
        "correct.py": quadrature + "\n\n" + running.replace("from __future__ import annotations\n", ""),
        "wrong.py": quadrature + "\n\n" + WRONG_RUNNING,
        "loops.py": running + "\n\n" + LOOPING_TRAPEZOID,
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return Course.load(root), folder, list(files)


def _grade(course, folder, names, lang="en") -> dict[str, list]:
    from grader.reading.submission import load_submission
    from grader.running.grade import grade_submissions

    found: dict[str, list] = {}
    submissions = []
    for name in names:
        submission = load_submission(folder / name, course)
        submission.exercises = ("trapezoid", "cumulative_trapezoid")
        submissions.append((name, submission))
    grade_submissions(submissions, found.__setitem__, course=course, seed=1234, lang=lang, prestart_sandbox=True)
    return found


def test_a_loop_costs_its_limit_once_per_exercise_and_says_why(graded, monkeypatch):
    course, folder, names = graded
    remembered = _grade(course, folder, names)
    import grader.running.session as session

    monkeypatch.setattr(session, "TIME_PROBLEMS", ())
    forgotten = _grade(course, folder, names)

    for name in ("correct.py", "wrong.py"):  # nothing times out: the same checks, the same scores
        now = [(t.name, t.status, t.score, t.output) for t in remembered[name]]
        assert now and now == [(t.name, t.status, t.score, t.output) for t in forgotten[name]], name
    assert sum(t.score for t in remembered["correct.py"]) == 7.0
    assert 0 < sum(t.score for t in remembered["wrong.py"]) < 7.0

    loops = {t.name: t for t in remembered["loops.py"] if t.exercise == "trapezoid"}
    assert len(loops) == 3 and all(t.status == "failed" and t.problem == "timeout" for t in loops.values())
    ran_out = [t for t in loops.values() if "ran longer than" in t.output]
    skipped = [t for t in loops.values() if t.output.startswith("Not run: trapezoid already ran out of time")]
    assert len(ran_out) == 1 and len(skipped) == 2, [t.output for t in loops.values()]
    assert ran_out[0].name in skipped[0].output and any(t.hidden for t in skipped)
    other = [t for t in remembered["loops.py"] if t.exercise == "cumulative_trapezoid"]
    assert other and all(t.status == "passed" for t in other)
    assert [(t.name, t.status, t.score) for t in other] == [
        (t.name, t.status, t.score) for t in forgotten["loops.py"] if t.exercise == "cumulative_trapezoid"
    ]
    # without the memory, every check of the looping exercise waits out the limit
    before = [t for t in forgotten["loops.py"] if t.exercise == "trapezoid"]
    assert [t.problem for t in before] == ["timeout"] * 3 and not any("Not run" in t.output for t in before)
    assert sum("ran longer than" in t.output for t in before if not t.hidden) == 2


def test_the_student_reads_why_in_chinese(graded):
    course, folder, _ = graded
    loops = [t for t in _grade(course, folder, ["loops.py"], lang="zh")["loops.py"] if t.exercise == "trapezoid"]
    skipped = [t for t in loops if t.output.startswith("未运行：trapezoid 在前面的检查中已经超时")]
    assert len(skipped) == 2, [t.output for t in loops]
