"""The capstone's training runs (a coursegen plugin module: @experiment, @claim).

`capstone_runs` trains the reference TinyLM once per (arm, seed) in child processes (one thread
each, fixed seeds: `python -m solutions.capstone_training`), so the build process never imports
torch; the engine caches its results by content hash. Each claim function reads those results and
returns Evidence: whether the statement the lesson makes holds, a one-line summary, and the
per-seed values the page shows.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from coursegen.plugin import Evidence, Measure, claim, experiment

_ROOT = Path(__file__).resolve().parents[2]  # the course root (content/plugins/experiments.py)
_OPTIONS = ("steps", "lr", "scale_embeddings", "equal_lengths", "position_std")


@experiment(sources=("solutions/capstone_training.py", "solutions/capstone.py", "solutions/lm_head.py"),
            versions=("torch",))
def capstone_runs(*, arms: list = (), seeds: list = (0, 1, 2, 3, 4), steps: int = 300, workers: int = 2) -> dict:
    """{"seeds": [...], "arms": {id: {"config": {...}, "seeds": [...], "runs": [one per seed]}}}.
    An arm is {id, position, and optionally steps, lr, scale_embeddings, equal_lengths, position_std,
    seeds}; what one run measures: solutions/capstone_training.run. Jobs are split over `workers`
    child processes by their steps (longest first); every run is seeded on its own, so the split
    changes no number."""
    jobs, owners = [], []
    for arm in arms:
        arm = dict(arm)
        unknown = set(arm) - {"id", "position", "seeds", *_OPTIONS}
        if unknown or "id" not in arm or "position" not in arm:
            raise ValueError(f"arm {arm!r}: needs id and position; may set {', '.join(_OPTIONS)}, seeds")
        for seed in arm.get("seeds", seeds):
            job = {"position": arm["position"], "steps": steps, "seed": int(seed)}
            job.update({k: arm[k] for k in _OPTIONS if k in arm})
            jobs.append(job)
            owners.append(arm["id"])
    shares: list[list[dict]] = [[] for _ in range(max(1, workers))]
    loads = [0] * len(shares)
    for job in sorted(jobs, key=lambda j: -j["steps"]):         # longest first, to the least-loaded worker
        least = loads.index(min(loads))
        shares[least].append(job)
        loads[least] += job["steps"]
    outputs = _run_children([share for share in shares if share])
    done: dict[tuple, dict] = {}
    for share, runs in zip([s for s in shares if s], outputs):
        for job, result in zip(share, runs):
            done[json.dumps(job, sort_keys=True)] = result
    results: dict = {"seeds": [int(s) for s in seeds], "arms": {}}
    for job, owner in zip(jobs, owners):
        entry = results["arms"].setdefault(owner, {"config": {k: v for k, v in job.items() if k != "seed"},
                                                   "seeds": [], "runs": []})
        entry["seeds"].append(job["seed"])
        entry["runs"].append(done[json.dumps(job, sort_keys=True)])
    return results


def _run_children(shares: list[list[dict]]) -> list[list[dict]]:
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
    children = [subprocess.Popen([sys.executable, "-m", "solutions.capstone_training", json.dumps({"jobs": share})],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(_ROOT), env=env)
                for share in shares]
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=1800)
        if child.returncode != 0:
            raise RuntimeError(f"training the capstone model failed:\n{err[-2000:]}")
        outputs.append(json.loads(out)["runs"])
    return outputs


# ---- claims ----------------------------------------------------------------------------------

def _arm(results: dict, arm: str) -> dict:
    if arm not in results["arms"]:
        raise ValueError(f"the experiment has no arm '{arm}' (arms: {', '.join(results['arms'])})")
    return results["arms"][arm]


def _values(results: dict, arm: str, measure: str) -> tuple[float, ...]:
    return tuple(float("nan") if r[measure] is None else float(r[measure]) for r in _arm(results, arm)["runs"])


def _counted(results: dict, arms: list, measure: str, test, at_least: int | None, label: str,
             decimals: int = 3) -> Evidence:
    """Does `test(value)` hold in at least `at_least` seeds (default: every seed) of every arm?"""
    rows, parts, holds = [], [], True
    seeds = tuple(_arm(results, arms[0])["seeds"])
    for arm in arms:
        values = _values(results, arm, measure)
        if tuple(_arm(results, arm)["seeds"]) != seeds:
            raise ValueError(f"arms {arms[0]} and {arm} ran different seeds: compare arms of the same seeds")
        passed = sum(1 for v in values if test(v))
        wanted = len(values) if at_least is None else at_least
        holds = holds and passed >= wanted
        parts.append(f"{arm}: {passed}/{len(values)} seeds {label}")
        rows.append(Measure(f"{arm}: {measure}", values, decimals))
    return Evidence(holds, "; ".join(parts), seeds, tuple(rows))


@claim(experiment="capstone_runs")
def final_loss_below(results, *, arms: list = (), floor: float = 0.718, at_least: int = -1) -> Evidence:
    """The final loss (mean of the last 10 steps) is below `floor` in at least `at_least` seeds of
    each arm (-1: every seed)."""
    return _counted(results, list(arms), "final", lambda v: v < floor, None if at_least < 0 else at_least,
                    f"below {floor}")


@claim(experiment="capstone_runs")
def final_loss_above(results, *, arms: list = (), floor: float = 0.718, at_most_below: int = 0) -> Evidence:
    """The final loss stays above `floor` in every seed of each arm, except at most `at_most_below` seeds."""
    seeds_of = {arm: len(_arm(results, arm)["runs"]) for arm in arms}
    wanted = min(seeds_of.values()) - at_most_below if seeds_of else 0
    return _counted(results, list(arms), "final", lambda v: v >= floor, wanted, f"at or above {floor}")


@claim(experiment="capstone_runs")
def fewer_seeds_below(results, *, arms: list = (), than: str = "", floor: float = 0.718) -> Evidence:
    """Each arm of `arms` ends below `floor` in fewer seeds than arm `than` does (same seeds)."""
    def below(arm: str) -> int:
        return sum(1 for v in _values(results, arm, "final") if v < floor)

    reference = below(than)
    evidence = _counted(results, [than, *arms], "final", lambda v: v < floor, 0, f"below {floor}")
    holds = all(below(arm) < reference for arm in arms)
    return Evidence(holds, evidence.summary, evidence.seeds, evidence.rows)


@claim(experiment="capstone_runs")
def predicts_two_back(results, *, arms: list = (), accuracy: float = 0.9, at_least: int = -1,
                      at_most: int = -1) -> Evidence:
    """On fresh sequences, the argmax is the token two places back in at least `accuracy` of the
    predictable positions, in at least `at_least` seeds (-1: every seed) and at most `at_most` (-1: no bound)."""
    wanted = None if at_least < 0 else at_least
    evidence = _counted(results, list(arms), "two_back", lambda v: v >= accuracy, wanted, f"with two-back >= {accuracy}")
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
    summary = f"{arm}: plateau ends at step {', '.join('never' if v != v else str(int(v)) for v in values)}"
    return Evidence(holds, summary + f" (wanted {at_least} to {at_most})", seeds,
                    (Measure(f"{arm}: plateau steps", values, 0),))


@claim(experiment="capstone_runs")
def initial_row_length(results, *, arm: str = "learned", low: float = 0.0, high: float = 1e9) -> Evidence:
    """The learned position table's mean row length at initialisation lies in [low, high] in every seed."""
    values = _values(results, arm, "row_length")
    holds = all(low <= v <= high for v in values)
    return Evidence(holds, f"{arm}: initial row length {min(values):.2f} to {max(values):.2f} "
                           f"(wanted {low} to {high})", tuple(_arm(results, arm)["seeds"]),
                    (Measure(f"{arm}: row length", values, 2),))


@claim(experiment="capstone_runs")
def final_loss_between(results, *, arms: list = (), low: float = 0.0, high: float = 100.0) -> Evidence:
    """The final loss lies between `low` and `high` in every seed of each arm."""
    return _counted(results, list(arms), "final", lambda v: low <= v <= high, None, f"between {low} and {high}")
