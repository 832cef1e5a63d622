"""Run the engine's tests in a copy of the repository that holds no first course.

    python bench/engine_without_course.py [pytest options...]

Copies the repository's files (`git ls-files`: tracked, plus new files that are not ignored; a file
deleted in the working tree is left out) to a temporary folder, removes the first course's own
folders (content/ solutions/ exercises/ grader/checks/), makes the copy a git repository of its own
(tests read the file list from git) and runs `python -m pytest tests/engine` there. The copy's code
is the code under test: the copy is first on PYTHONPATH and the working directory, and a check
before pytest runs stops the script when `grader` or `coursegen` would be imported from anywhere
else (an editable install points at the original checkout). Prints the outcome and the wall time;
asserts nothing about time. The exit code is pytest's (2 when the copy could not be prepared).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE_FOLDERS = ("content", "solutions", "exercises", "grader/checks")  # the first course's own files


def repository_files(root: Path) -> list[str]:
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted({name for name in listing.split("\0") if name})


def copy_without_course(root: Path, dest: Path) -> None:
    for name in repository_files(root):
        if any(name == folder or name.startswith(folder + "/") for folder in COURSE_FOLDERS):
            continue
        source, target = root / name, dest / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(source.readlink())  # links into the removed folders dangle, as in such a copy
        else:
            shutil.copy2(source, target)
    left = [folder for folder in COURSE_FOLDERS if (dest / folder).exists()]
    if left:
        raise SystemExit(f"the copy still holds {left}")
    git = ["git", "-C", str(dest), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)


def copy_env(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(copy), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("COURSEGEN_ROOT", None)
    return env


def imports_from_copy(copy: Path, env: dict[str, str]) -> bool:
    probe = "import coursegen, grader; print(coursegen.__file__); print(grader.__file__)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=env, capture_output=True, text=True)
    files = [Path(line).resolve() for line in done.stdout.split()]
    print(f"engine imported from: {', '.join(map(str, files)) or done.stderr.strip()}")
    return done.returncode == 0 and len(files) == 2 and all(f.is_relative_to(copy.resolve()) for f in files)


def main(pytest_args: list[str]) -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="coursegen-no-course-") as tmp:
        copy = Path(tmp) / "repo"
        copy_without_course(ROOT, copy)
        env = copy_env(copy)
        if not imports_from_copy(copy, env):
            print("the copy's engine is not the one imported: not running its tests", file=sys.stderr)
            return 2
        command = [sys.executable, "-m", "pytest", "tests/engine", "-p", "no:cacheprovider", *pytest_args]
        without = " ".join(f + "/" for f in COURSE_FOLDERS)
        print(f"== in {copy} (without {without}): python -m pytest tests/engine {' '.join(pytest_args)}", flush=True)
        code = subprocess.run(command, cwd=copy, env=env).returncode
    wall = time.monotonic() - started
    print(f"tests/engine without the first course: pytest exited {code}; wall time {wall:.1f} s ({wall / 60:.1f} min)")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
