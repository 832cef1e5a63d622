"""Precomputed reference values: feedback that runs where students can read everything.

A GitHub Classroom workflow runs in the student's own repository, so the package it
installs must not contain `solutions/`. The checks still need expected values; this module
supplies them from a recording:

* at export time (instructor's machine), the public checks of a lesson's exercises run
  against the reference solution with `COURSEGEN_RECORD=<dir>` set and a fixed public seed;
  every call the checks make on the `reference` fixture is recorded (arguments and results
  as JSON plus raw tensor bytes, never pickle) by `RecordingReference`;
* in the student repository, `COURSEGEN_REPLAY=<dir>` makes the `reference` fixture a
  `ReplayReference`, which answers the same calls from the recording, keyed by a stable
  hash of the function name and its arguments. The seed is forced to the recorded one, so
  the checks draw the same inputs; only the public checks of the recorded exercises run.

The feedback is never the authoritative grade (the student can edit the workflow): it only
spares students a wait for the real grader, which runs where they cannot reach.

The package, one job per module:
    values.py      values <-> JSON + blob, with the sandbox's wire codec; call keys
    recording.py   the recording on disk (index.json + tensors.bin)
    proxies.py     RecordingReference / ReplayReference (what the `reference` fixture becomes)
    this file      the mode, from COURSEGEN_RECORD / COURSEGEN_REPLAY, and the plugin's hooks

Hooks for the grader's pytest plugin (grader/running/pytest_plugin.py) — see docs/architecture.md:
    replay.provide_reference(make_real)   the `reference` fixture's value
    replay.forced_seed()                  the seed to use instead of the run's secret one, or None
    replay.keep_item(exercise, hidden)    whether a collected check runs in this mode
    replay.session_finished()             writes the recording (record mode)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from .proxies import RecordingReference, ReplayMiss, ReplayReference
from .recording import FORMAT, INDEX_FILE, PUBLIC_SEED, TENSOR_FILE, Recording
from .values import ReplayError, call_key

__all__ = [
    "FORMAT",
    "INDEX_FILE",
    "PUBLIC_SEED",
    "RECORD_ENV",
    "REPLAY_ENV",
    "TENSOR_FILE",
    "Recording",
    "RecordingReference",
    "ReplayError",
    "ReplayMiss",
    "ReplayReference",
    "call_key",
    "forced_seed",
    "keep_item",
    "mode",
    "provide_reference",
    "session_finished",
]

RECORD_ENV = "COURSEGEN_RECORD"
REPLAY_ENV = "COURSEGEN_REPLAY"

_ACTIVE_RECORDING: Recording | None = None
_LOADED_REPLAY: tuple[Path, Recording] | None = None  # the recording last read, and its file


def mode() -> str | None:
    """ "record", "replay" or None (normal grading), from COURSEGEN_RECORD / COURSEGEN_REPLAY."""
    if os.environ.get(RECORD_ENV) and os.environ.get(REPLAY_ENV):
        raise ReplayError(f"set {RECORD_ENV} or {REPLAY_ENV}, not both")
    if os.environ.get(RECORD_ENV):
        return "record"
    if os.environ.get(REPLAY_ENV):
        return "replay"
    return None


def _replay_recording() -> Recording:
    global _LOADED_REPLAY
    path = Path(os.environ[REPLAY_ENV])
    if _LOADED_REPLAY is None or _LOADED_REPLAY[0] != path:
        _LOADED_REPLAY = (path, Recording.load(path))
    return _LOADED_REPLAY[1]


def provide_reference(make_real: Callable[[], Any]) -> Any:
    """The value of the `reference` fixture: the real solutions, a recorder around them, or a
    replayer (which never calls `make_real`, so `solutions/` need not exist)."""
    global _ACTIVE_RECORDING
    current = mode()
    if current == "replay":
        return ReplayReference(_replay_recording())
    if current == "record":
        if _ACTIVE_RECORDING is None:
            _ACTIVE_RECORDING = Recording(seed=PUBLIC_SEED)
        return RecordingReference(make_real(), _ACTIVE_RECORDING)
    return make_real()


def forced_seed() -> int | None:
    """The seed the run must use instead of its secret one: the recording's, in both modes."""
    current = mode()
    if current == "replay":
        return _replay_recording().seed
    if current == "record":
        return PUBLIC_SEED
    return None


def keep_item(exercise: str | None, hidden: bool) -> bool:
    """Whether a collected check runs: in both modes only public checks, and when replaying
    only those of the recorded exercises. In record mode the checks' exercises are noted."""
    current = mode()
    if current is None:
        return True
    if hidden:
        return False
    if current == "replay":
        return exercise in _replay_recording().exercises
    global _ACTIVE_RECORDING
    if _ACTIVE_RECORDING is None:
        _ACTIVE_RECORDING = Recording(seed=PUBLIC_SEED)
    if exercise and exercise not in _ACTIVE_RECORDING.exercises:
        _ACTIVE_RECORDING.exercises.append(exercise)
    return True


def session_finished() -> None:
    """Record mode: write (merge into) the recording directory named by COURSEGEN_RECORD."""
    global _ACTIVE_RECORDING
    if mode() != "record" or _ACTIVE_RECORDING is None:
        return
    directory = Path(os.environ[RECORD_ENV])
    if (directory / INDEX_FILE).exists():
        _ACTIVE_RECORDING.merge_from(directory)
    _ACTIVE_RECORDING.save(directory)
    _ACTIVE_RECORDING = None
