"""Item statistics of a quiz, as Moodle's "Quiz statistics calculations" documents them.

Notation (Moodle's): students s, questions i; x_i(s) the score of s on question i, with
x_i(min) = 0 and x_i(max) the question's points; T(s) = sum_i x_i(s) the test score;
X_i(s) = T(s) - x_i(s) the score on the rest of the test. V is the sample variance
(divisor S - 1), C the sample covariance.

    facility index            F_i  = 100 (mean x_i - x_i(min)) / (x_i(max) - x_i(min))
    standard deviation        SD_i = 100 sqrt(V(x_i)) / (x_i(max) - x_i(min))
    discrimination index      D_i  = 100 r(x_i, X_i) = 100 C(x_i, X_i) / sqrt(V(x_i) V(X_i))
    discriminative efficiency DE_i = 100 C(x_i, X_i) / C_max(x_i, X_i), C_max the covariance
                              of x_i and X_i each sorted into the same order
    coefficient of internal consistency (Cronbach's alpha)
                              CIC  = 100 P / (P - 1) (1 - sum_i V(x_i) / V(T)),  P questions

and the classic upper-lower index the issue asks for, `upper_lower`: students ranked by T
(ties broken by student id), the top and bottom 27% (rounded, at least one each):
    (mean x_i of the top group - mean x_i of the bottom group) / x_i(max)   in [-1, 1].

A statistic that divides by zero (every student scored the same) is None: "undefined", not 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

UPPER_LOWER_SHARE = 0.27
FACILITY_LOW, FACILITY_HIGH = 5.0, 95.0  # facility (percent) near 0 or near 1: flag the question


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def variance(values: list[float]) -> float | None:
    """Sample variance (divisor n - 1); None for fewer than two values."""
    if len(values) < 2:
        return None
    m = mean(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)


def covariance(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    mx, my = mean(xs), mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (len(xs) - 1)


@dataclass(frozen=True)
class ItemStats:
    question: str
    count: int  # students with a score on the question
    facility: float | None  # percent
    sd: float | None  # percent of the question's range
    discrimination: float | None  # Moodle's: 100 r(x_i, rest of test)
    efficiency: float | None  # Moodle's discriminative efficiency, percent
    upper_lower: float | None  # top 27% minus bottom 27%, as a share of the points, -1..1
    flags: tuple[str, ...]  # "negative_discrimination", "facility_near_0", "facility_near_1"


@dataclass(frozen=True)
class QuizStats:
    students: int
    questions: list[ItemStats]
    alpha: float | None  # Moodle's coefficient of internal consistency, percent
    mean_score: float | None  # percent of the maximum


def quiz_statistics(scores: dict[str, dict[str, float]], max_points: dict[str, float]) -> QuizStats:
    """Statistics of one quiz from `scores[student][question]` (points) and each question's
    points. A student without a score on a question counts 0 (Moodle's option 1), which is
    what `coursegen quiz grade` records for an unanswered question anyway."""
    questions = list(max_points)
    students = sorted(scores)
    matrix = {q: [float(scores[s].get(q, 0.0)) for s in students] for q in questions}
    totals = [sum(matrix[q][k] for q in questions) for k in range(len(students))]
    items = [_item(q, matrix[q], totals, float(max_points[q]), students) for q in questions]
    alpha = None
    total_variance = variance(totals)
    item_variances = [v for q in questions if (v := variance(matrix[q])) is not None]
    if len(questions) > 1 and total_variance and len(item_variances) == len(questions):
        p = len(questions)
        alpha = 100 * p / (p - 1) * (1 - sum(item_variances) / total_variance)
    full = sum(float(max_points[q]) for q in questions)
    mean_score = 100 * mean(totals) / full if students and full else None
    return QuizStats(len(students), items, alpha, mean_score)


def _item(question: str, xs: list[float], totals: list[float], top: float, students: list[str]) -> ItemStats:
    if not xs or top <= 0:
        return ItemStats(question, len(xs), None, None, None, None, None, ())
    facility = 100 * mean(xs) / top
    v_x = variance(xs)
    sd = 100 * math.sqrt(v_x) / top if v_x is not None else None
    rest = [t - x for t, x in zip(totals, xs)]
    v_rest = variance(rest)
    c = covariance(xs, rest)
    discrimination = efficiency = None
    if c is not None and v_x and v_rest:
        discrimination = 100 * c / math.sqrt(v_x * v_rest)
        c_max = covariance(sorted(xs), sorted(rest))
        efficiency = 100 * c / c_max if c_max else None
    upper_lower = upper_lower_index(xs, totals, students, top)
    flags = []
    if (discrimination is not None and discrimination < 0) or (upper_lower is not None and upper_lower < 0):
        flags.append("negative_discrimination")
    if facility <= FACILITY_LOW:
        flags.append("facility_near_0")
    if facility >= FACILITY_HIGH:
        flags.append("facility_near_1")
    return ItemStats(question, len(xs), facility, sd, discrimination, efficiency, upper_lower, tuple(flags))


def upper_lower_index(
    xs: list[float], totals: list[float], students: list[str], top: float, share: float = UPPER_LOWER_SHARE
) -> float | None:
    """Mean share of the points in the top `share` of students by total minus the bottom's."""
    n = len(xs)
    if n < 2:
        return None
    group = max(1, min(n // 2, round(share * n)))
    order = sorted(range(n), key=lambda k: (-totals[k], students[k]))
    upper = [xs[k] for k in order[:group]]
    lower = [xs[k] for k in order[-group:]]
    return (mean(upper) - mean(lower)) / top


def histogram(shares: list[float], bins: int = 10) -> list[int]:
    """Counts of scores (as shares 0..1 of the maximum) in `bins` equal bins; 1.0 in the last."""
    counts = [0] * bins
    for share in shares:
        counts[min(bins - 1, max(0, int(share * bins)))] += 1
    return counts
