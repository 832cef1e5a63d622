"""Answer functions of the course's generated questions: each key is computed with the reference
implementation (solutions/), its distractors with the catalogued mistakes where they apply."""
from __future__ import annotations

from coursegen.plugin import Generated, Wrong, answer_function, from_mistakes, reference


def _row(*values: float):
    import torch

    return torch.tensor([float(v) for v in values], dtype=torch.float64)


@answer_function("mean_of_four", kind="number")
def mean_of_four(a: int, b: int, c: int, d: int) -> Generated:
    """The mean of [a, b, c, d]."""
    x = _row(a, b, c, d)
    wrong = {"sum": Wrong(float(a + b + c + d)), "divided-by-three": Wrong((a + b + c + d) / 3)}
    return Generated(float(reference("mean")(x)), wrong)


@answer_function("median_of_four", kind="number")
def median_of_four(a: int, b: int, c: int, d: int) -> Generated:
    """The median of [a, b, c, d] (an even count: the mean of the two middle values)."""
    x = _row(a, b, c, d)
    wrong = from_mistakes("median", lambda median: float(median(x)))
    wrong["mean"] = Wrong(float(reference("mean")(x)))
    wrong["unsorted-middle"] = Wrong((b + c) / 2)
    return Generated(float(reference("median")(x)), wrong)


@answer_function("mean_after_adding", kind="number")
def mean_after_adding(n: int, m: int, v: int) -> Generated:
    """n values with mean m, then one more value v: the mean of the n + 1 values."""
    x = _row(*([m] * n), v)
    wrong = {"average-of-the-two": Wrong((m + v) / 2), "unchanged": Wrong(float(m)), "over-n": Wrong((n * m + v) / n)}
    return Generated(float(reference("mean")(x)), wrong)


@answer_function("population_variance", kind="number")
def population_variance(a: int, b: int, c: int) -> Generated:
    """The population variance (ddof=0) of [a, b, c]."""
    x = _row(a, b, c)
    variance = reference("variance")
    wrong = {"sample": Wrong(float(variance(x, ddof=1))), "standard-deviation": Wrong(float(variance(x)) ** 0.5)}
    return Generated(float(variance(x)), wrong)


@answer_function("sample_variance", kind="number")
def sample_variance(a: int, b: int, c: int, d: int) -> Generated:
    """The sample variance (ddof=1) of [a, b, c, d]."""
    x = _row(a, b, c, d)
    variance = reference("variance")
    wrong = from_mistakes("variance", lambda mistaken: float(mistaken(x, ddof=1)))
    wrong["standard-deviation"] = Wrong(float(variance(x, ddof=1)) ** 0.5)
    return Generated(float(variance(x, ddof=1)), wrong)


@answer_function("scaled_variance", kind="number")
def scaled_variance(k: int, a: int, b: int, c: int) -> Generated:
    """The population variance of [k a, k b, k c]."""
    x = _row(a, b, c)
    variance = reference("variance")
    wrong = {"scaled-once": Wrong(k * float(variance(x))), "unchanged": Wrong(float(variance(x)))}
    return Generated(float(variance(k * x)), wrong)
