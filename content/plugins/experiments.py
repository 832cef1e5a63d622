"""The capstone's training runs (a coursegen plugin module: @experiment).

`capstone_runs` trains the reference TinyLM once per (arm, seed) in child processes (one thread
each, fixed seeds: `python -m solutions.capstone_training`), so the build process never imports
torch; the engine caches its results by the content of this module, its params and its sources.
The claims that read them live in experiment_claims.py, so that editing a claim reruns no training.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from coursegen.plugin import experiment

_ROOT = Path(__file__).resolve().parents[2]  # the course root (content/plugins/experiments.py)
_OPTIONS = ("steps", "lr", "scale_embeddings", "equal_lengths", "position_std")
# torch picks its CPU kernels by instruction set (AVX-512 where there is one, else AVX2), and so do
# MKL and oneDNN; hundreds of training steps turn their rounding differences into different models
# (one seed ends at 0.40 on one machine and at 0.72 on another). The baseline kernels of all three
# remove the instruction-set differences; they do not make every processor alike (an AMD EPYC still
# ended one sinusoidal seed at 0.44 where the machine the claims were first written on ended it above
# 0.75), so the lesson's claims keep a margin over the seeds (docs/authoring.md).
BASELINE_KERNELS = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "ONEDNN_MAX_CPU_ISA": "SSE41"}


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
    env.update(BASELINE_KERNELS)
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
