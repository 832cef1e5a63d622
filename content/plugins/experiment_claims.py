"""The claims the capstone makes about its runs (a coursegen plugin module: @claim).

Each function reads the results of `capstone_runs` (experiments.py) and returns Evidence: whether
the statement the lesson makes holds, a one-line summary, and the per-seed values the page shows.
"""
from __future__ import annotations

from coursegen.plugin import Evidence, Measure, claim

# what a run measures (solutions/capstone_training.run), as the evidence tables name it
_LABELS = {
    "final": {"en": "final loss", "zh": "最终损失"},
    "two_back": {"en": "two-back accuracy", "zh": "往前两个位置的准确率"},
    "plateau": {"en": "plateau steps", "zh": "平台期步数"},
    "row_length": {"en": "initial row length", "zh": "初始行长度"},
}


def _label(arm: str, measure: str) -> dict[str, str]:
    return {lang: f"{arm}: {text}" for lang, text in _LABELS[measure].items()}


def _arm(results: dict, arm: str) -> dict:
    if arm not in results["arms"]:
        raise ValueError(f"the experiment has no arm '{arm}' (arms: {', '.join(results['arms'])})")
    return results["arms"][arm]


def _values(results: dict, arm: str, measure: str) -> tuple[float, ...]:
    return tuple(float("nan") if r[measure] is None else float(r[measure]) for r in _arm(results, arm)["runs"])


def _counted(results: dict, arms: list, measure: str, test, at_least: int | None, label: tuple[str, str],
             decimals: int = 3) -> Evidence:
    """Does `test(value)` hold in at least `at_least` seeds (default: every seed) of every arm?"""
    rows, parts, parts_zh, holds = [], [], [], True
    seeds = tuple(_arm(results, arms[0])["seeds"])
    for arm in arms:
        values = _values(results, arm, measure)
        if tuple(_arm(results, arm)["seeds"]) != seeds:
            raise ValueError(f"arms {arms[0]} and {arm} ran different seeds: compare arms of the same seeds")
        passed = sum(1 for v in values if test(v))
        wanted = len(values) if at_least is None else at_least
        holds = holds and passed >= wanted
        parts.append(f"{arm}: {passed}/{len(values)} seeds {label[0]}")
        parts_zh.append(f"{arm}：{len(values)} 个种子中 {passed} 个{label[1]}")
        rows.append(Measure(_label(arm, measure), values, decimals))
    return Evidence(holds, {"en": "; ".join(parts), "zh": "；".join(parts_zh)}, seeds, tuple(rows))


@claim(experiment="capstone_runs")
def final_loss_below(results, *, arms: list = (), floor: float = 0.718, at_least: int = -1) -> Evidence:
    """The final loss (mean of the last 10 steps) is below `floor` in at least `at_least` seeds of
    each arm (-1: every seed)."""
    return _counted(results, list(arms), "final", lambda v: v < floor, None if at_least < 0 else at_least,
                    (f"below {floor}", f"低于 {floor}"))


@claim(experiment="capstone_runs")
def final_loss_above(results, *, arms: list = (), floor: float = 0.718, at_most_below: int = 0) -> Evidence:
    """The final loss stays above `floor` in every seed of each arm, except at most `at_most_below` seeds."""
    seeds_of = {arm: len(_arm(results, arm)["runs"]) for arm in arms}
    wanted = min(seeds_of.values()) - at_most_below if seeds_of else 0
    return _counted(results, list(arms), "final", lambda v: v >= floor, wanted, (f"at or above {floor}", f"不低于 {floor}"))


@claim(experiment="capstone_runs")
def fewer_seeds_below(results, *, arms: list = (), than: str = "", floor: float = 0.718) -> Evidence:
    """Each arm of `arms` ends below `floor` in fewer seeds than arm `than` does (same seeds)."""
    def below(arm: str) -> int:
        return sum(1 for v in _values(results, arm, "final") if v < floor)

    reference = below(than)
    evidence = _counted(results, [than, *arms], "final", lambda v: v < floor, 0, (f"below {floor}", f"低于 {floor}"))
    holds = all(below(arm) < reference for arm in arms)
    return Evidence(holds, evidence.summary, evidence.seeds, evidence.rows)


@claim(experiment="capstone_runs")
def predicts_two_back(results, *, arms: list = (), accuracy: float = 0.9, at_least: int = -1,
                      at_most: int = -1) -> Evidence:
    """On fresh sequences, the argmax is the token two places back in at least `accuracy` of the
    predictable positions, in at least `at_least` seeds (-1: every seed) and at most `at_most` (-1: no bound)."""
    wanted = None if at_least < 0 else at_least
    evidence = _counted(results, list(arms), "two_back", lambda v: v >= accuracy, wanted,
                        (f"with two-back accuracy >= {accuracy}", f"往前两个位置的准确率 >= {accuracy}"))
    if at_most >= 0:
        counts = [sum(1 for v in _values(results, arm, "two_back") if v >= accuracy) for arm in arms]
        evidence = Evidence(evidence.holds and all(c <= at_most for c in counts), evidence.summary, evidence.seeds,
                            evidence.rows)
    return evidence


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
    return Evidence(holds, summary, seeds,
                    (Measure(_label(arm, "plateau"), values, 0),))


@claim(experiment="capstone_runs")
def initial_row_length(results, *, arm: str = "learned", low: float = 0.0, high: float = 1e9) -> Evidence:
    """The learned position table's mean row length at initialisation lies in [low, high] in every seed."""
    values = _values(results, arm, "row_length")
    holds = all(low <= v <= high for v in values)
    summary = {"en": f"{arm}: initial row length {min(values):.2f} to {max(values):.2f} (wanted {low} to {high})",
               "zh": f"{arm}：初始行长度 {min(values):.2f} 到 {max(values):.2f}（要求 {low} 到 {high}）"}
    return Evidence(holds, summary, tuple(_arm(results, arm)["seeds"]),
                    (Measure(_label(arm, "row_length"), values, 2),))


@claim(experiment="capstone_runs")
def final_loss_between(results, *, arms: list = (), low: float = 0.0, high: float = 100.0) -> Evidence:
    """The final loss lies between `low` and `high` in every seed of each arm."""
    return _counted(results, list(arms), "final", lambda v: low <= v <= high, None,
                    (f"between {low} and {high}", f"在 {low} 到 {high} 之间"))
