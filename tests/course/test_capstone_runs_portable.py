"""The capstone's training runs do not depend on the processor's instruction sets.

torch, MKL and oneDNN choose their CPU kernels by the instruction sets the processor has, and a few
dozen training steps turn the kernels' rounding differences into different models: the lesson's
claims held on one machine and failed on another. The experiment pins the baseline kernels
(content/plugins/experiments.py, BASELINE_KERNELS). A processor with fewer instruction sets is
emulated here by capping torch's own kernels at the baseline and MKL and oneDNN at SSE4.2 (MKL
ignores that cap on AMD processors, torch's does not), which a run under the pin must not notice,
while a run without it does. Processors of different makers can still differ (docs/authoring.md):
the claims keep a margin over the seeds for that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from coursegen.plugin_loading import load_plugins

ROOT = Path(__file__).resolve().parents[2]
JOB = {"jobs": [{"position": "sinusoidal", "steps": 60, "seed": 4}]}
OLDER_PROCESSOR = {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"}


def _pinned_kernels() -> dict[str, str]:
    package = load_plugins(ROOT)  # the course's plugin package (coursegen.plugin_loading)
    return dict(sys.modules[f"{package}.experiments"].BASELINE_KERNELS)


def _losses(*settings: dict[str, str]) -> list[float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ATEN_", "MKL_", "ONEDNN_"))}
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    for setting in settings:
        env.update(setting)
    done = subprocess.run(
        [sys.executable, "-m", "solutions.capstone_training", json.dumps(JOB)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)["runs"][0]["losses"]


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_pinned_run_is_the_same_on_a_processor_with_fewer_instruction_sets():
    pinned = _pinned_kernels()
    assert _losses(pinned) == _losses(OLDER_PROCESSOR, pinned)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_without_the_pin_the_emulated_older_processor_changes_the_numbers():
    """The control: the emulation really reaches the kernels, so the test above can fail."""
    if torch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this processor has no vector instruction sets beyond the baseline: nothing to emulate")
    assert _losses() != _losses(OLDER_PROCESSOR)
