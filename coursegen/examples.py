"""Run the lessons' code examples at build time, in ONE child process, with a cache.

The code blocks of one lesson run in order and share a namespace, like notebook cells;
every lesson starts from a fresh namespace and freshly seeded generators (see
coursegen.example_child). All the lessons that need running go to a single child
process, so torch is imported once per build rather than once per lesson. The build
process itself never executes example code (and never imports torch for it). Each
block's output is cached under `.coursegen-cache/examples/` by a hash of its code, the
code of the blocks before it in its lesson and the library versions, so a rebuild with
no change starts no process at all, and a change in one lesson reruns that lesson only.

An example that raises fails the build with the lesson, the block id, the place in
the YAML file and the traceback; the errors of every lesson are reported together.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Iterator


from .cache import Cache
from .errors import ContentError, ContentErrors
from .example_child import RESULT_PREFIX
from .pysource import line_offset
from .schema import CodeBlock, Lesson

CACHE_FORMAT = "3"  # bump when the child changes what it records or how it runs
TIMEOUT_SECONDS = 600
MAX_OUTPUT_CHARS = 20_000


def library_versions() -> dict[str, str]:
    """Versions that can change an example's output (read without importing the libraries)."""
    versions = {"python": sys.version.split()[0]}
    for package in ("torch", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "absent"
    return versions


@dataclass
class ExampleRunner:
    """Runs and caches examples; counts what it really executed (tests read the counters)."""

    cache_dir: Path
    processes_started: int = 0
    blocks_executed: int = 0
    blocks_from_cache: int = 0
    _versions: dict[str, str] = field(default_factory=library_versions)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _count(self, **increments: int) -> None:
        with self._lock:
            for name, value in increments.items():
                setattr(self, name, getattr(self, name) + value)

    def course_outputs(self, loaded) -> dict[tuple[str, str], str]:
        """{(lesson id, block id): output} for every code block of the course, running what is
        not cached in one child process. Raises ContentErrors naming every failing example."""
        outputs: dict[tuple[str, str], str] = {}
        to_run: list[tuple[Lesson, list[tuple[tuple, CodeBlock]], list[str]]] = []
        for lesson in loaded.lessons:
            located = list(_code_blocks(lesson))
            keys = self._keys([block for _, block in located])
            missing_up_to = -1
            for index, (_, block) in enumerate(located):
                cached = self._read(keys[index])
                if cached is None:
                    missing_up_to = index
                else:
                    outputs[(lesson.id, block.id)] = cached
            # A block that must run needs the namespace of the blocks before it: rerun those too.
            self._count(blocks_from_cache=len(located) - (missing_up_to + 1))
            if missing_up_to >= 0:
                to_run.append((lesson, located[: missing_up_to + 1], keys[: missing_up_to + 1]))
        if not to_run:
            return outputs
        fresh, errors = self._run(loaded, [(lesson, located) for lesson, located, _ in to_run])
        for lesson, located, keys in to_run:
            for (_, block), key in zip(located, keys):
                if (lesson.id, block.id) in fresh:
                    self._write(key, fresh[(lesson.id, block.id)])
                    outputs[(lesson.id, block.id)] = fresh[(lesson.id, block.id)]
        if errors:
            raise ContentErrors(errors)
        return outputs

    def outputs(self, loaded, lesson) -> dict[str, str]:
        """{block id: output} for the code blocks of one lesson (see `course_outputs`)."""
        one_lesson = _OneLesson(loaded, lesson)
        return {block: output for (_, block), output in self.course_outputs(one_lesson).items()}

    # ---- cache ------------------------------------------------------------------------------
    def _keys(self, blocks: list[CodeBlock]) -> list[str]:
        keys, digest = (
            [],
            hashlib.sha256(json.dumps({"format": CACHE_FORMAT, "versions": self._versions}, sort_keys=True).encode()),
        )
        for block in blocks:
            digest.update(b"\0block\0" + block.code.encode())
            keys.append(digest.copy().hexdigest())
        return keys

    def _read(self, key: str) -> str | None:
        output = Cache(self.cache_dir).get("examples", key)
        return output if isinstance(output, str) else None

    def _write(self, key: str, output: str) -> None:
        Cache(self.cache_dir).put("examples", key, output)

    # ---- running ----------------------------------------------------------------------------
    def _run(self, loaded, lessons) -> tuple[dict[tuple[str, str], str], list[ContentError]]:
        """Run [(lesson, located blocks)] in one child: (outputs of blocks that ran, errors)."""
        payload = {
            "lessons": [
                {
                    "id": lesson.id,
                    "blocks": [
                        {"id": block.id, "code": block.code, "filename": _filename(lesson.id, block.id)}
                        for _, block in located
                    ],
                }
                for lesson, located in lessons
            ]
        }
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHONSTARTUP")}
        env.update({"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "PYTHONIOENCODING": "utf-8"})
        names = ", ".join(f"'{lesson.id}'" for lesson, _ in lessons)
        self._count(processes_started=1)
        with tempfile.TemporaryDirectory(prefix="coursegen-example-") as workdir:
            try:
                completed = subprocess.run(
                    [sys.executable, "-m", "coursegen.example_child"],
                    input=json.dumps(payload),
                    capture_output=True,
                    text=True,
                    encoding="utf-8",
                    cwd=workdir,
                    env=env,
                    timeout=TIMEOUT_SECONDS,
                )
            except subprocess.TimeoutExpired:
                raise ContentError(
                    loaded.location(lessons[0][0].id, ()),
                    f"code examples of lessons {names} ran longer than {TIMEOUT_SECONDS} s together",
                ) from None
        reports = {}
        for line in completed.stdout.splitlines():
            if line.startswith(RESULT_PREFIX):
                report = json.loads(line[len(RESULT_PREFIX) :])
                reports[report["id"]] = report["results"]
        outputs: dict[tuple[str, str], str] = {}
        errors: list[ContentError] = []
        for lesson, located in lessons:
            if lesson.id not in reports:  # the process died while running this lesson
                errors.append(
                    ContentError(
                        loaded.location(lesson.id, ()),
                        f"the process running the code examples crashed during lesson '{lesson.id}' "
                        f"(exit {completed.returncode}): {completed.stderr.strip()[-2000:]}",
                    )
                )
                break
            for result in reports[lesson.id]:
                self._count(blocks_executed=1)
                if result.get("error") is not None:
                    errors.append(self._failure(loaded, lesson, located, result))
                    break
                outputs[(lesson.id, result["id"])] = _truncate(result["output"])
        return outputs, errors

    @staticmethod
    def _failure(loaded, lesson, located, result) -> ContentError:
        path, block = next((p, b) for p, b in located if b.id == result["id"])
        line = max(int(result.get("line") or 1), 1)
        location = loaded.text_location(lesson.id, path + ("code",), line_offset(block.code, line - 1))
        return ContentError(
            location,
            f"code example '{result['id']}' of lesson '{lesson.id}' raised an "
            f"exception (line {line} of the example):\n{result['error'].rstrip()}",
        )


class _OneLesson:
    """A view of a loaded course with a single lesson (for `ExampleRunner.outputs`)."""

    def __init__(self, loaded, lesson) -> None:
        self._loaded, self.lessons = loaded, [lesson]

    def __getattr__(self, name):
        return getattr(self._loaded, name)


def _code_blocks(lesson: Lesson) -> Iterator[tuple[tuple, CodeBlock]]:
    """(path in the lesson file, block) of each code block, in order."""
    for s_index, section in enumerate(lesson.sections):
        for b_index, block in enumerate(section.blocks):
            if isinstance(block, CodeBlock):
                yield ("sections", s_index, "blocks", b_index), block


def _filename(lesson_id: str, block_id: str) -> str:
    return f"<example {lesson_id}:{block_id}>"


def _truncate(output: str) -> str:
    if len(output) <= MAX_OUTPUT_CHARS:
        return output
    return output[:MAX_OUTPUT_CHARS] + f"\n... ({len(output) - MAX_OUTPUT_CHARS} more characters)\n"
