"""Time the two exports of one lesson and report their sizes (prints figures; asserts nothing).

    python bench/export_bench.py [--root .] [--lesson tokens-embeddings]

Without --lesson it builds a throwaway course whose one lesson holds all fifteen exercises
(the same as the export tests), so the figures do not depend on the state of content/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--lesson", default=None)
    args = parser.parse_args()

    from coursegen.exports.classroom import RECORDING_DIR, export_classroom
    from coursegen.exports.gradescope import export_gradescope

    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        root, lesson = args.root, args.lesson
        if lesson is None:
            from grader.course import Course
            from tests.export.helpers import LESSON_ID, make_course

            root, lesson = (
                make_course(scratch_path / "course", tuple(e.name for e in Course.load(REPO).registry.exercises)),
                LESSON_ID,
            )
        start = time.perf_counter()
        done = export_classroom(root or REPO, lesson, scratch_path / "starter")
        classroom_s = time.perf_counter() - start
        recording = scratch_path / "starter" / ".autograder" / RECORDING_DIR
        print(
            f"classroom export: {classroom_s:.1f} s, {done.checks} public checks recorded and replayed, "
            f"tree {size(scratch_path / 'starter') / 1024:.0f} KiB, recording {size(recording) / 1024:.0f} KiB"
        )
        start = time.perf_counter()
        zipped = export_gradescope(root or REPO, lesson, scratch_path / "autograder.zip")
        print(
            f"gradescope export: {time.perf_counter() - start:.1f} s, {zipped.entries} files, "
            f"zip {size(zipped.zip_path) / 1024:.0f} KiB"
        )


if __name__ == "__main__":
    main()
