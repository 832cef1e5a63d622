"""Record the reference's answers to a lesson's public checks, then prove the recording suffices.

One child interpreter (so the environment switch, COURSEGEN_RECORD then COURSEGEN_REPLAY,
read by grader/replay/, never leaks into the exporting process) grades the lesson's
SOLUTION notebook twice through the real grader, sandbox included:

1. record: with the course's own checks, every `reference` call the public checks make
   is written to the recording;
2. replay: with the FILTERED checks that ship to students, against the recording; the
   exporter requires every check to pass. A check whose reference calls depend on anything
   but its inputs (the global random generator, the student's output) fails here, so it
   is caught at export time rather than in a student's repository.

    python -m coursegen.exports.record ROOT NOTEBOOK RECORDING COURSE_CHECKS SHIPPED_CHECKS EXERCISE...
prints one JSON line per check and step: {"step", "name", "exercise", "passed", "output"}.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .files import ExportError

RECORD_ENV = "COURSEGEN_RECORD"  # the names grader/replay/ reads (not imported: no torch here)
REPLAY_ENV = "COURSEGEN_REPLAY"
PUBLIC_SEED = 20240601  # equals grader.replay.PUBLIC_SEED; a test keeps them in step


def record_and_replay(
    notebook: Path, recording: Path, course_checks: Path, shipped_checks: Path, exercises: tuple[str, ...], root: Path
) -> dict[str, list[dict]]:
    """{"record": [outcome...], "replay": [outcome...]} from grading `notebook` in a child."""
    env = {k: v for k, v in os.environ.items() if k not in (RECORD_ENV, REPLAY_ENV)}
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [
        sys.executable,
        "-m",
        "coursegen.exports.record",
        str(root),
        str(notebook),
        str(recording),
        str(course_checks),
        str(shipped_checks),
        *exercises,
    ]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise ExportError(
            f"grading the solution notebook to record expected values failed (exit {done.returncode}):\n{tail}"
        )
    steps: dict[str, list[dict]] = {"record": [], "replay": []}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            outcome = json.loads(line)
            steps[outcome["step"]].append(outcome)
    return steps


def _grade(root: Path, notebook: Path, checks: Path, exercises: tuple[str, ...]) -> list:
    from grader.course import Course
    from grader.running.grade import grade_submission
    from grader.reading.submission import load_submission

    course = Course.load(root)
    submission = load_submission(notebook, course)
    if submission.fatal:
        raise SystemExit(f"{notebook}: {submission.fatal}")
    return grade_submission(
        submission, course=course, seed=PUBLIC_SEED, lang="en", exercises=exercises, checks_dir=checks
    ).tests


def _main(argv: list[str]) -> int:
    root, notebook, recording, course_checks, shipped_checks, *exercises = argv
    for step, env_name, checks in (("record", RECORD_ENV, course_checks), ("replay", REPLAY_ENV, shipped_checks)):
        os.environ.pop(RECORD_ENV, None)
        os.environ.pop(REPLAY_ENV, None)
        os.environ[env_name] = recording
        for test in _grade(Path(root), Path(notebook), Path(checks), tuple(exercises)):
            print(
                json.dumps(
                    {
                        "step": step,
                        "name": test.name,
                        "exercise": test.exercise,
                        "passed": test.status == "passed",
                        "output": test.output,
                    }
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
