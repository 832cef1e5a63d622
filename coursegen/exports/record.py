"""Record the reference's answers to a lesson's public checks, then prove the recording suffices.

Both steps grade the lesson's SOLUTION notebook through the real grader (sandbox
included), each in a fresh interpreter so the environment switch (COURSEGEN_RECORD /
COURSEGEN_REPLAY, read by grader/replay.py) never leaks into the exporting process:

1. record: every `reference` call the public checks make is written to the recording;
2. replay: the same notebook graded against the recording, with the FILTERED checks that
   ship to students, must pass every check. Otherwise the export fails, naming the checks:
   a check whose calls depend on something other than its inputs cannot be precomputed.

    python -m coursegen.exports.record {record|replay} NOTEBOOK RECORDING CHECKS_DIR EXERCISE...
prints one JSON line per check: {"name", "exercise", "passed", "output"}.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .files import ExportError

RECORD_ENV = "COURSEGEN_RECORD"   # the names grader/replay.py reads (not imported: no torch here)
REPLAY_ENV = "COURSEGEN_REPLAY"
PUBLIC_SEED = 20240601            # equals grader.replay.PUBLIC_SEED; a test keeps them in step


def run_checks(mode: str, notebook: Path, recording: Path, checks_dir: Path, exercises: tuple[str, ...],
               root: Path) -> list[dict]:
    """Grade `notebook` in a child interpreter in record or replay mode; the outcome per check."""
    env = {k: v for k, v in os.environ.items() if k not in (RECORD_ENV, REPLAY_ENV)}
    env[RECORD_ENV if mode == "record" else REPLAY_ENV] = str(recording)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-m", "coursegen.exports.record", mode, str(notebook), str(recording),
               str(checks_dir), *exercises]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise ExportError(f"grading the solution notebook in {mode} mode failed (exit {done.returncode}):\n{tail}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _main(argv: list[str]) -> int:
    mode, notebook, _recording, checks_dir, *exercises = argv
    from grader.grade import grade_submission
    from grader.submission import load_submission

    submission = load_submission(Path(notebook))
    if submission.fatal:
        print(f"{notebook}: {submission.fatal}", file=sys.stderr)
        return 1
    result = grade_submission(submission, seed=PUBLIC_SEED, lang="en", exercises=exercises,
                              checks_dir=Path(checks_dir))
    outcomes = [t for t in result.tests]
    for outcome in outcomes:
        print(json.dumps({"name": outcome.name, "exercise": outcome.exercise, "passed": outcome.status == "passed",
                          "hidden": outcome.hidden, "output": outcome.output}))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
