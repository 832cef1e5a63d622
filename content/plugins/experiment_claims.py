"""The claims the capstone makes about its runs (a coursegen plugin module: @claim).

Each function reads the results of `capstone_runs` (experiments.py) and returns Evidence: whether
the statement the lesson makes holds, a one-line summary, and the per-seed values the page shows.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from fractions import Fraction

from coursegen.plugin import Evidence, Measure, claim

# the corpus (solutions/capstone_training.py): patterns of PERIOD distinct tokens of VOCAB, repeated
VOCAB, PERIOD, SEQ_LEN = 8, 3, 12
DEFAULT_MARGIN = 0.05  # every seed keeps this distance from a claim's threshold (docs/authoring.md)

# what a run measures (solutions/capstone_training.run), as the evidence tables name it
_LABELS = {
    "final": {"en": "final loss", "zh": "最终损失"},
    "two_back": {"en": "two-back accuracy", "zh": "往前两个位置的准确率"},
    "plateau": {"en": "plateau steps", "zh": "平台期步数"},
    "row_length": {"en": "initial row length", "zh": "初始行长度"},
    "early_share": {"en": "share of the gap above 0.340 from the first two targets",
                    "zh": "高出 0.340 的部分中来自前两个目标的比例"},
    "seen_mass": {"en": "probability on already-seen tokens at the first two targets",
                  "zh": "前两个目标上分给已出现 token 的概率"},
    "margin": {"en": "signed distance from the threshold (+: on the claim's side)",
               "zh": "与阈值的有向距离（正：在论断一侧）"},
}


def no_order_two_back_bound() -> Fraction:
    """The best two-back accuracy over the predictable targets (t >= 2) of a model that knows, of the
    earlier tokens, only how often each occurred (their counts, so also their proportions) and the
    current token: exact enumeration of every pattern, the most frequent next token per view."""
    right = total = 0
    for t in range(PERIOD - 1, SEQ_LEN - 1):
        groups: dict = defaultdict(Counter)
        for pattern in itertools.permutations(range(VOCAB), PERIOD):
            x = [pattern[i % PERIOD] for i in range(SEQ_LEN)]
            groups[(tuple(sorted(Counter(x[: t + 1]).items())), x[t])][x[t + 1]] += 1
        right += sum(max(counts.values()) for counts in groups.values())
        total += sum(sum(counts.values()) for counts in groups.values())
    return Fraction(right, total)


def order_floor() -> float:
    """The best mean loss of a model that knows the order: ln 7 + ln 6 over the 11 targets."""
    return (math.log(VOCAB - 1) + math.log(VOCAB - 2)) / (SEQ_LEN - 1)


def _label(arm: str, measure: str) -> dict[str, str]:
    return {lang: f"{arm}: {text}" for lang, text in _LABELS[measure].items()}


def _arm(results: dict, arm: str) -> dict:
    if arm not in results["arms"]:
        raise ValueError(f"the experiment has no arm '{arm}' (arms: {', '.join(results['arms'])})")
    return results["arms"][arm]


def _values(results: dict, arm: str, measure: str) -> tuple[float, ...]:
    runs = _arm(results, arm)["runs"]
    if measure == "early_share":
        return tuple(_early_share(r["target_losses"]) for r in runs)
    return tuple(float("nan") if r[measure] is None else float(r[measure]) for r in runs)


def _early_share(target_losses: list[float]) -> float:
    """Of the held-out loss above the order floor, the share the first two targets contribute."""
    floor = math.log(VOCAB - 1) + math.log(VOCAB - 2)          # the first two targets' own floor, summed
    return (target_losses[0] + target_losses[1] - floor) / (sum(target_losses) - floor)


def _counted(results: dict, arms: list, measure: str, test, at_least: int | None, label: tuple[str, str],
             decimals: int = 3, threshold: float | tuple[float, ...] | None = None,
             margin: float = DEFAULT_MARGIN) -> Evidence:
    """Does `test(value)` hold in at least `at_least` seeds (default: every seed) of every arm? With a
    `threshold` (or several), the evidence also gives each seed's distance from the nearest one and
    the smallest distance over all seeds (the claim's margin, which must be at least `margin`)."""
    rows, parts, parts_zh, holds = [], [], [], True
    distances: list[float] = []
    thresholds = () if threshold is None else ((threshold,) if isinstance(threshold, (int, float)) else threshold)
    seeds = tuple(_arm(results, arms[0])["seeds"])
    for arm in arms:
        values = _values(results, arm, measure)
        if tuple(_arm(results, arm)["seeds"]) != seeds:
            raise ValueError(f"arms {arms[0]} and {arm} ran different seeds: compare arms of the same seeds")
        passed = sum(1 for v in values if test(v))
        wanted = len(values) if at_least is None else at_least
        holds = holds and passed >= wanted
        if thresholds:
            # signed distance from the nearest threshold, positive on the passing side; the margin is
            # that of the wanted-th best seed (every seed when all are wanted; the worst failing seed
            # when none may pass): the distance a seed must move before the claim's count changes
            signed = tuple((1 if test(v) else -1) * min(abs(v - t) for t in thresholds) if v == v else 0.0
                           for v in values)
            ranked = sorted(signed, reverse=True)
            distances.append(ranked[wanted - 1] if wanted > 0 else min(-d for d in signed))
        parts.append(f"{arm}: {passed}/{len(values)} seeds {label[0]}")
        parts_zh.append(f"{arm}：{len(values)} 个种子中 {passed} 个{label[1]}")
        rows.append(Measure(_label(arm, measure), values, decimals))
        if thresholds:
            rows.append(Measure(_label(arm, "margin"), signed, decimals))
    return Evidence(holds, {"en": "; ".join(parts), "zh": "；".join(parts_zh)}, seeds, tuple(rows),
                    min(distances) if distances else None, margin)


@claim(experiment="capstone_runs")
def final_loss_below(results, *, arms: list = (), floor: float = 0.718, at_least: int = -1,
                     margin: float = DEFAULT_MARGIN) -> Evidence:
    """The final loss (mean of the last 10 steps) is below `floor` in at least `at_least` seeds of
    each arm (-1: every seed); every seed stays `margin` away from `floor`."""
    return _counted(results, list(arms), "final", lambda v: v < floor, None if at_least < 0 else at_least,
                    (f"below {floor}", f"低于 {floor}"), threshold=floor, margin=margin)


@claim(experiment="capstone_runs")
def final_loss_above(results, *, arms: list = (), floor: float = 0.718, at_most_below: int = 0,
                     margin: float = DEFAULT_MARGIN) -> Evidence:
    """The final loss stays above `floor` in every seed of each arm, except at most `at_most_below` seeds;
    every seed stays `margin` away from `floor`."""
    seeds_of = {arm: len(_arm(results, arm)["runs"]) for arm in arms}
    wanted = min(seeds_of.values()) - at_most_below if seeds_of else 0
    return _counted(results, list(arms), "final", lambda v: v >= floor, wanted,
                    (f"at or above {floor}", f"不低于 {floor}"), threshold=floor, margin=margin)


@claim(experiment="capstone_runs")
def predicts_two_back(results, *, arms: list = (), accuracy: float = 0.9, at_least: int = -1,
                      at_most: int = -1, margin: float = DEFAULT_MARGIN) -> Evidence:
    """On fresh sequences, the argmax is the token two places back in at least `accuracy` of the
    predictable positions, in at least `at_least` seeds (-1: every seed) and at most `at_most` (-1: no
    bound); every seed stays `margin` away from `accuracy`."""
    wanted = None if at_least < 0 else at_least
    evidence = _counted(results, list(arms), "two_back", lambda v: v >= accuracy, wanted,
                        (f"with two-back accuracy >= {accuracy}", f"往前两个位置的准确率 >= {accuracy}"),
                        threshold=accuracy, margin=margin)
    if at_most >= 0:
        counts = [sum(1 for v in _values(results, arm, "two_back") if v >= accuracy) for arm in arms]
        evidence = Evidence(evidence.holds and all(c <= at_most for c in counts), evidence.summary, evidence.seeds,
                            evidence.rows, evidence.margin, evidence.required_margin)
    return evidence


@claim(experiment="capstone_runs")
def two_back_vs_no_order(results, *, arms: list = (), side: str = "above", at_least: int = -1,
                         margin: float = DEFAULT_MARGIN) -> Evidence:
    """The two-back accuracy is `side` ("above" or "below") the best a model without order can reach
    (no_order_two_back_bound, computed by exact enumeration: 2/3) in at least `at_least` seeds of each
    arm (-1: every seed); every seed stays `margin` away from the bound."""
    if side not in ("above", "below"):
        raise ValueError(f"side must be 'above' or 'below', got {side!r}")
    bound = float(no_order_two_back_bound())
    above = side == "above"
    words = (f"{side} the no-order bound {bound:.3f}", f"{'高于' if above else '低于'}无顺序上限 {bound:.3f}")
    return _counted(results, list(arms), "two_back", (lambda v: v > bound) if above else (lambda v: v < bound),
                    None if at_least < 0 else at_least, words, threshold=bound, margin=margin)


@claim(experiment="capstone_runs")
def early_targets_share(results, *, arms: list = (), share: float = 0.5, margin: float = DEFAULT_MARGIN) -> Evidence:
    """On fresh sequences, at least `share` of the loss above the order floor (0.340) comes from the
    first two targets (whose own floor is ln 7 + ln 6), in every seed; every seed stays `margin` away."""
    return _counted(results, list(arms), "early_share", lambda v: v >= share, None,
                    (f"with a share >= {share}", f"比例 >= {share}"), threshold=share, margin=margin)


@claim(experiment="capstone_runs")
def seen_tokens_mass(results, *, arms: list = (), mass: float = 0.3, margin: float = DEFAULT_MARGIN) -> Evidence:
    """At the first two targets (where the next token is always one not yet seen), the model puts at
    least `mass` of its probability on tokens already seen, in every seed; every seed stays `margin` away."""
    return _counted(results, list(arms), "seen_mass", lambda v: v >= mass, None,
                    (f"with mass >= {mass}", f"概率 >= {mass}"), threshold=mass, margin=margin)


@claim(experiment="capstone_runs")
def token_rows_outgrow_table(results, *, arm: str = "", step: int = 100, factor: float = 2.0) -> Evidence:
    """At `step`, the token vectors are on average at least `factor` times as long as the position
    vectors (which start equal in the equal-length arm), in every seed."""
    runs = _arm(results, arm)["runs"]
    at = [r["norms"][str(step)] for r in runs]
    start = [r["norms"]["0"] for r in runs]
    ratios = tuple(token / position for token, position in at)
    holds = all(v >= factor for v in ratios)
    summary = {"en": f"{arm}: token/position length ratio at step 0 {min(t / q for t, q in start):.2f}-"
                     f"{max(t / q for t, q in start):.2f}, at step {step} {min(ratios):.2f}-{max(ratios):.2f} "
                     f"(wanted at least {factor})",
               "zh": f"{arm}：token 与位置向量长度之比在第 0 步为 {min(t / q for t, q in start):.2f}–"
                     f"{max(t / q for t, q in start):.2f}，第 {step} 步为 {min(ratios):.2f}–{max(ratios):.2f}"
                     f"（要求至少 {factor}）"}
    rows = (Measure({"en": f"{arm}: token length, step {step}", "zh": f"{arm}：第 {step} 步 token 长度"},
                    tuple(t for t, _ in at), 2),
            Measure({"en": f"{arm}: position length, step {step}", "zh": f"{arm}：第 {step} 步位置长度"},
                    tuple(q for _, q in at), 2),
            Measure({"en": f"{arm}: ratio", "zh": f"{arm}：比值"}, ratios, 2))
    return Evidence(holds, summary, tuple(_arm(results, arm)["seeds"]), rows,
                    min(abs(v - factor) for v in ratios), DEFAULT_MARGIN)


@claim(experiment="capstone_runs")
def plateau_length(results, *, arm: str = "", at_least: int = 0, at_most: int = 100000) -> Evidence:
    """In every seed, the loss leaves the plateau near ln 8 (10-step mean below 1.9) after at least
    `at_least` and at most `at_most` steps."""
    values = _values(results, arm, "plateau")
    seeds = tuple(_arm(results, arm)["seeds"])
    holds = all(at_least <= v <= at_most for v in values)  # NaN (never left) fails both
    steps = [("never" if v != v else str(int(v)), "从未" if v != v else str(int(v))) for v in values]
    bounds = [(f"at least {at_least}", f"至少 {at_least}")] if at_least > 0 else []
    bounds += [(f"at most {at_most}", f"至多 {at_most}")] if at_most < 100000 else []
    summary = {"en": f"{arm}: plateau ends at step {', '.join(en for en, _ in steps)} "
                     f"(wanted {' and '.join(en for en, _ in bounds) or 'any'})",
               "zh": f"{arm}：平台期结束于第 {'、'.join(zh for _, zh in steps)} 步"
                     f"（要求{'且'.join(zh for _, zh in bounds) or '不限'}）"}
    limits = [b for b in (at_least if at_least > 0 else None, at_most if at_most < 100000 else None) if b is not None]
    # margin in steps, relative to the bound: a seed 3 steps from a bound of 20 keeps 0.15
    margin = min((abs(v - b) / b for v in values for b in limits), default=None) if all(v == v for v in values) else 0.0
    return Evidence(holds, summary, seeds,
                    (Measure(_label(arm, "plateau"), values, 0),), margin, DEFAULT_MARGIN)


@claim(experiment="capstone_runs")
def initial_row_length(results, *, arm: str = "learned", low: float = 0.0, high: float = 1e9) -> Evidence:
    """The learned position table's mean row length at initialisation lies in [low, high] in every seed."""
    values = _values(results, arm, "row_length")
    holds = all(low <= v <= high for v in values)
    summary = {"en": f"{arm}: initial row length {min(values):.2f} to {max(values):.2f} (wanted {low} to {high})",
               "zh": f"{arm}：初始行长度 {min(values):.2f} 到 {max(values):.2f}（要求 {low} 到 {high}）"}
    return Evidence(holds, summary, tuple(_arm(results, arm)["seeds"]),
                    (Measure(_label(arm, "row_length"), values, 2),),
                    min(min(abs(v - low), abs(v - high)) for v in values), DEFAULT_MARGIN)


@claim(experiment="capstone_runs")
def final_loss_between(results, *, arms: list = (), low: float = 0.0, high: float = 100.0,
                       margin: float = DEFAULT_MARGIN) -> Evidence:
    """The final loss lies between `low` and `high` in every seed of each arm; every seed stays `margin`
    away from both."""
    return _counted(results, list(arms), "final", lambda v: low <= v <= high, None,
                    (f"between {low} and {high}", f"在 {low} 到 {high} 之间"), threshold=(low, high), margin=margin)
