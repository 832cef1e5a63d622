"""Run the lessons' code examples at build time, in a child process, with a cache.

The code blocks of one lesson run in order in one fresh Python process and share a
namespace, like notebook cells. The build process itself never executes example
code (and never imports torch for it). Each block's output is cached under
`.coursegen-cache/examples/` by a hash of its code, the code of the blocks before it
and the library versions, so a rebuild with no change starts no process at all.

An example that raises fails the build with the lesson, the block id, the place in
the YAML file and the traceback.
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

from .errors import ContentError, ContentErrors
from .schema import CodeBlock

CACHE_FORMAT = "2"  # bump when the child changes what it records
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

    def outputs(self, loaded, lesson) -> dict[str, str]:
        """{block id: output} for every code block of `lesson`, running only what is not cached."""
        located = list(_code_blocks(lesson))
        if not located:
            return {}
        keys = self._keys([block for _, block in located])
        results: dict[str, str] = {}
        missing_up_to = -1
        for index, (_, block) in enumerate(located):
            cached = self._read(keys[index])
            if cached is None:
                missing_up_to = index
            else:
                results[block.id] = cached
        if missing_up_to < 0:
            self._count(blocks_from_cache=len(located))
            return results
        to_run = located[: missing_up_to + 1]
        fresh = self._run(loaded, lesson, to_run)
        for index, (_, block) in enumerate(to_run):
            self._write(keys[index], fresh[block.id])
            results[block.id] = fresh[block.id]
        self._count(blocks_from_cache=len(located) - len(to_run))
        return results

    # ---- cache ------------------------------------------------------------------------------
    def _keys(self, blocks: list[CodeBlock]) -> list[str]:
        keys, digest = [], hashlib.sha256(json.dumps(
            {"format": CACHE_FORMAT, "versions": self._versions}, sort_keys=True).encode())
        for block in blocks:
            digest.update(b"\0block\0" + block.code.encode())
            keys.append(digest.copy().hexdigest())
        return keys

    def _read(self, key: str) -> str | None:
        path = self.cache_dir / "examples" / f"{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))["output"]
        except (OSError, ValueError, KeyError):
            return None

    def _write(self, key: str, output: str) -> None:
        folder = self.cache_dir / "examples"
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{key}.{os.getpid()}.tmp"
        temporary.write_text(json.dumps({"output": output}, ensure_ascii=False), encoding="utf-8")
        temporary.replace(folder / f"{key}.json")

    # ---- running ----------------------------------------------------------------------------
    def _run(self, loaded, lesson, located) -> dict[str, str]:
        payload = {"blocks": [{"id": block.id, "code": block.code, "filename": _filename(lesson.id, block.id)}
                              for _, block in located]}
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHONSTARTUP")}
        env.update({"MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1",
                    "PYTHONIOENCODING": "utf-8"})
        self._count(processes_started=1)
        with tempfile.TemporaryDirectory(prefix="coursegen-example-") as workdir:
            try:
                completed = subprocess.run(
                    [sys.executable, "-m", "coursegen.example_child"], input=json.dumps(payload),
                    capture_output=True, text=True, encoding="utf-8", cwd=workdir, env=env,
                    timeout=TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                raise ContentError(loaded.location(lesson.id, ()),
                                   f"code examples of lesson '{lesson.id}' ran longer than {TIMEOUT_SECONDS} s") from None
        try:
            report = json.loads(completed.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            raise ContentError(loaded.location(lesson.id, ()),
                               f"the process running lesson '{lesson.id}' examples crashed "
                               f"(exit {completed.returncode}): {completed.stderr.strip()[-2000:]}") from None
        outputs: dict[str, str] = {}
        for result in report["results"]:
            self._count(blocks_executed=1)
            if result.get("error") is not None:
                path = next(p for p, b in located if b.id == result["id"])
                line = max(int(result.get("line") or 1), 1)
                code = next(b for _, b in located if b.id == result["id"]).code
                location = loaded.text_location(lesson.id, path + ("code",), _line_offset(code, line - 1))
                raise ContentErrors([ContentError(
                    location, f"code example '{result['id']}' of lesson '{lesson.id}' raised an exception "
                              f"(line {line} of the example):\n{result['error'].rstrip()}")])
            outputs[result["id"]] = _truncate(result["output"])
        return outputs


def _code_blocks(lesson):
    for s_index, section in enumerate(lesson.sections):
        for b_index, block in enumerate(section.blocks):
            if isinstance(block, CodeBlock):
                yield ("sections", s_index, "blocks", b_index), block


def _filename(lesson_id: str, block_id: str) -> str:
    return f"<example {lesson_id}:{block_id}>"


def _line_offset(text: str, line_index: int) -> int:
    offset = 0
    for _ in range(line_index):
        newline = text.find("\n", offset)
        if newline < 0:
            break
        offset = newline + 1
    return offset


def _truncate(output: str) -> str:
    if len(output) <= MAX_OUTPUT_CHARS:
        return output
    return output[:MAX_OUTPUT_CHARS] + f"\n... ({len(output) - MAX_OUTPUT_CHARS} more characters)\n"
