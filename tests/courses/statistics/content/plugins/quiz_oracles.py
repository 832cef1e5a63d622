"""Independent oracles: the closed form of each answer function, in plain Python (no torch, no
solutions, no answer helpers). `coursegen verify` compares them with the keys over each question's
whole parameter space."""
from __future__ import annotations

from coursegen.plugin import oracle


@oracle("mean_of_four")
def mean_of_four(a: int, b: int, c: int, d: int) -> float:
    return (a + b + c + d) / 4


@oracle("median_of_four")
def median_of_four(a: int, b: int, c: int, d: int) -> float:
    ordered = sorted((a, b, c, d))
    return (ordered[1] + ordered[2]) / 2


@oracle("mean_after_adding")
def mean_after_adding(n: int, m: int, v: int) -> float:
    return (n * m + v) / (n + 1)


@oracle("population_variance")
def population_variance(a: int, b: int, c: int) -> float:
    # E[x^2] - E[x]^2, scaled by 9 to stay in integers until the end
    return (3 * (a * a + b * b + c * c) - (a + b + c) ** 2) / 9


@oracle("sample_variance")
def sample_variance(a: int, b: int, c: int, d: int) -> float:
    # sum over pairs (x_i - x_j)^2 / (n (n - 1)): no mean needed
    values = (a, b, c, d)
    pairs = sum((values[i] - values[j]) ** 2 for i in range(4) for j in range(i + 1, 4))
    return pairs / (4 * 3)


@oracle("scaled_variance")
def scaled_variance(k: int, a: int, b: int, c: int) -> float:
    return k * k * (3 * (a * a + b * b + c * c) - (a + b + c) ** 2) / 9
