"""Quiz statistics as Moodle documents them, on responses whose properties are known by
construction; expected values come from the standard library's statistics module and counting,
not from coursegen.report.stats."""

from __future__ import annotations

import csv
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from coursegen.report.quizdata import quiz_reports, read_quiz_results
from coursegen.report.stats import quiz_statistics

REPO = Path(__file__).resolve().parents[2]
N = 100
STUDENTS = [f"s{k:03d}" for k in range(N)]  # ability rank k: higher k, higher total


def _known_quiz() -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """An 'anchor' worth 1000 points scored 10k dominates the total, so the top 27% are exactly
    k >= 73 and the bottom 27% exactly k <= 26; the other questions are right or wrong (1 point)."""
    rules = {
        "easy": lambda k: True,
        "good": lambda k: k >= 40,
        "reversed": lambda k: k < 30,
        "hard": lambda k: k == 99,
        "even": lambda k: k % 2 == 0,
    }
    scores = {
        s: {"anchor": 10.0 * k, **{q: float(rule(k)) for q, rule in rules.items()}} for k, s in enumerate(STUDENTS)
    }
    return scores, {"anchor": 1000.0, **{q: 1.0 for q in rules}}


def test_facility_is_the_mean_score_as_a_percentage_of_the_points():
    stats = {i.question: i for i in quiz_statistics(*_known_quiz()).questions}
    assert stats["easy"].facility == 100 and stats["good"].facility == 60
    assert stats["reversed"].facility == 30 and stats["hard"].facility == 1 and stats["even"].facility == 50
    assert stats["anchor"].facility == pytest.approx(100 * statistics.mean(10 * k for k in range(N)) / 1000)


def test_upper_lower_discrimination_compares_the_top_and_bottom_27_percent():
    stats = {i.question: i for i in quiz_statistics(*_known_quiz()).questions}
    assert stats["good"].upper_lower == 1.0  # top 27 all right, bottom 27 all wrong
    assert stats["reversed"].upper_lower == -1.0  # the reverse
    evens_top = sum(1 for k in range(73, 100) if k % 2 == 0)  # 13
    evens_bottom = sum(1 for k in range(0, 27) if k % 2 == 0)  # 14
    assert stats["even"].upper_lower == pytest.approx((evens_top - evens_bottom) / 27)
    assert stats["hard"].upper_lower == pytest.approx(1 / 27)


def test_moodle_discrimination_index_is_the_correlation_with_the_rest_of_the_quiz():
    scores, points = _known_quiz()
    stats = {i.question: i for i in quiz_statistics(scores, points).questions}
    for question in ("good", "reversed", "hard", "even", "anchor"):
        x = [scores[s][question] for s in STUDENTS]
        rest = [sum(scores[s].values()) - scores[s][question] for s in STUDENTS]
        assert stats[question].discrimination == pytest.approx(100 * statistics.correlation(x, rest))
        assert stats[question].sd == pytest.approx(100 * statistics.stdev(x) / points[question])
    assert stats["easy"].discrimination is None  # every student scored the same: undefined, not 0


def test_discriminative_efficiency_divides_by_the_covariance_of_the_sorted_scores():
    scores, points = _known_quiz()
    stats = {i.question: i for i in quiz_statistics(scores, points).questions}
    x = [scores[s]["even"] for s in STUDENTS]
    rest = [sum(scores[s].values()) - scores[s]["even"] for s in STUDENTS]
    expected = 100 * statistics.covariance(x, rest) / statistics.covariance(sorted(x), sorted(rest))
    assert stats["even"].efficiency == pytest.approx(expected)


def test_cronbach_alpha_is_moodles_coefficient_of_internal_consistency():
    scores, points = _known_quiz()
    questions = list(points)
    item_variances = sum(statistics.variance([scores[s][q] for s in STUDENTS]) for q in questions)
    total_variance = statistics.variance([sum(scores[s].values()) for s in STUDENTS])
    p = len(questions)
    expected = 100 * p / (p - 1) * (1 - item_variances / total_variance)
    assert quiz_statistics(scores, points).alpha == pytest.approx(expected)


def test_broken_looking_questions_are_flagged():
    stats = {i.question: i for i in quiz_statistics(*_known_quiz()).questions}
    assert stats["reversed"].flags == ("negative_discrimination",)
    assert stats["easy"].flags == ("facility_near_1",)
    assert stats["hard"].flags == ("facility_near_0",)
    assert stats["good"].flags == ()


def test_alpha_is_undefined_for_one_question_or_identical_totals():
    assert quiz_statistics({"a": {"q": 1.0}, "b": {"q": 0.0}}, {"q": 1.0}).alpha is None
    assert quiz_statistics({"a": {"q": 1.0, "r": 0.0}, "b": {"q": 0.0, "r": 1.0}}, {"q": 1.0, "r": 1.0}).alpha is None


# ---- real responses, graded by `coursegen quiz grade`, read back per student's variant -------


@pytest.fixture(scope="module")
def graded_quiz(tmp_path_factory):
    """40 students answer two questions of the real lm-head-tying quiz, each in their own variant:
    full-path (single): 24 right, 10 one named wrong option, 6 blank;
    logit-by-hand (numeric): 30 right, 5 the catalogued 'logits-scaled-by-sqrt-d', 5 something else."""
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import format_number, make_variant

    (loaded,) = course_quizzes(REPO, ["lm-head-tying"])
    wrong_path = "ids → LM head → Transformer → embedding → softmax"
    folder = tmp_path_factory.mktemp("quiz")
    rows = []
    for k in range(40):
        student = f"q{k:02d}"
        items = {i["id"]: i for i in make_variant(loaded, student)["questions"]}
        options = [o["text"]["en"] for o in items["full-path"]["options"]]
        right = next(i for i, o in enumerate(items["full-path"]["options"]) if o["correct"])
        if k < 24:
            rows.append((student, "full-path", "ABCD"[right]))
        elif k < 34:
            rows.append((student, "full-path", "ABCD"[options.index(wrong_path)]))
        numeric = items["logit-by-hand"]
        if k < 30:
            value = numeric["answer"]
        elif k < 35:
            value = next(w["value"] for w in numeric["wrong"] if w["key"] == "logits-scaled-by-sqrt-d")
        else:
            value = 12345.5
        rows.append((student, "logit-by-hand", format_number(value, 6)))
    responses = folder / "responses.csv"
    with responses.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["student", "quiz", "question", "response"])
        writer.writerows((s, "lm-head-tying", q, r) for s, q, r in rows)
    book = folder / "quizzes.sqlite"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coursegen",
            "quiz",
            "grade",
            "--root",
            str(REPO),
            str(responses),
            "-o",
            str(folder / "scores.csv"),
            "--gradebook",
            str(book),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (report,) = quiz_reports(read_quiz_results(book), {"lm-head-tying": loaded})
    return report


def test_the_share_choosing_each_option_is_read_back_from_each_variant(graded_quiz):
    question = next(q for q in graded_quiz.questions if q.id == "full-path")
    counts = {c.label["en"]: (c.count, c.correct) for c in question.choices}
    assert counts["ids → embedding → Transformer → LM head → softmax"] == (24, True)
    assert counts["ids → LM head → Transformer → embedding → softmax"] == (10, False)
    assert counts["(no answer)"] == (6, False)
    assert sum(c for c, _ in counts.values()) == 40


def test_catalogued_wrong_numeric_answers_are_counted_by_their_key(graded_quiz):
    question = next(q for q in graded_quiz.questions if q.id == "logit-by-hand")
    counts = {c.key or c.label["en"]: c.count for c in question.choices}
    assert counts == {"correct answer": 30, "logits-scaled-by-sqrt-d": 5, "(other)": 5}


def test_facility_of_graded_questions_matches_the_known_proportions(graded_quiz):
    stats = {i.question: i for i in graded_quiz.stats.questions}
    assert graded_quiz.students == 40
    assert stats["full-path"].facility == pytest.approx(100 * 24 / 40)
    assert stats["logit-by-hand"].facility == pytest.approx(100 * 30 / 40)
    assert stats["tying-is-a-copy"].facility == 0  # nobody answered it
