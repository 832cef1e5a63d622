"""The child process that runs the lessons' code examples (started by coursegen.examples).

Reads {"lessons": [{"id", "blocks": [{"id", "code", "filename"}]}]} as JSON on stdin.
All lessons run in this one process, so torch is imported once per build, but each
lesson starts afresh: a new namespace, its own empty working folder, the random
generators seeded again and the global settings examples commonly change (torch's
default dtype, print options and grad mode; numpy's print options; warning filters)
put back. So a lesson's output does not depend on which lessons ran before it, and a
lesson run alone (the others cached) prints what it prints in a full build.

Within a lesson the blocks run in order in one namespace, like notebook cells. What a
block prints to stdout is its output; stderr (warnings) is kept only for the error
report. A lesson stops at its first block that raises; the next lesson still runs.
After each lesson one line `RESULT_PREFIX{"id", "results": [{"id", "output", "error",
"line"}]}` is written to stdout, so the lessons finished before a crash are not lost.
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import os
import random
import sys
import traceback
import warnings

RESULT_PREFIX = "@@coursegen-example-result@@ "


class GlobalState:
    """The process-wide settings a lesson may change, captured before the first lesson."""

    def __init__(self, all_code: str) -> None:
        # Import what the examples use now, so that the state captured is the import-time state.
        if "torch" in all_code:
            import torch

            torch.set_num_threads(1)
        if "numpy" in all_code or "np." in all_code or "torch" in all_code:
            import numpy  # noqa: F401  (torch imports it too)
        self.warning_filters = list(warnings.filters)
        loaded_numpy = sys.modules.get("numpy")
        self.numpy_print = loaded_numpy.get_printoptions() if loaded_numpy else None
        loaded_torch = sys.modules.get("torch")
        self.torch_dtype = loaded_torch.get_default_dtype() if loaded_torch else None

    def restore(self) -> None:
        random.seed(0)
        # typeshed declares warnings.filters a Sequence; it is the list that warnings itself mutates.
        warnings.filters[:] = self.warning_filters  # type: ignore[index]
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(0)
            if self.numpy_print is not None:
                numpy.set_printoptions(**self.numpy_print)
        torch = sys.modules.get("torch")
        if torch is not None:
            torch.manual_seed(0)
            torch.set_default_dtype(self.torch_dtype or torch.float32)
            torch.set_printoptions(profile="default", sci_mode=None)
            torch.set_grad_enabled(True)


def run_block(block: dict, namespace: dict) -> dict:
    captured = io.StringIO()
    diagnostics = io.StringIO()  # stderr (warnings): not shown under the code
    error, line = None, None
    linecache.cache[block["filename"]] = (len(block["code"]), None, block["code"].splitlines(True), block["filename"])
    try:
        compiled = compile(block["code"], block["filename"], "exec")
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(diagnostics):
            exec(compiled, namespace)
    except BaseException as exc:  # report every failure, including SystemExit
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == block["filename"]]
        line = frames[-1].lineno if frames else getattr(exc, "lineno", None)
        shown = traceback.TracebackException.from_exception(exc)
        shown.stack = traceback.StackSummary.from_list(
            [f for f in shown.stack if not f.filename.endswith("example_child.py")]
        )
        error = diagnostics.getvalue() + "".join(shown.format())
    return {"id": block["id"], "output": captured.getvalue(), "error": error, "line": line}


def run_lesson(lesson: dict, state: GlobalState, workdir: str) -> list[dict]:
    os.makedirs(workdir, exist_ok=True)
    os.chdir(workdir)
    state.restore()
    namespace: dict = {"__name__": "__main__"}
    results = []
    for block in lesson["blocks"]:
        results.append(run_block(block, namespace))
        if results[-1]["error"] is not None:
            break
    return results


def main() -> None:
    payload = json.loads(sys.stdin.read())
    real_stdout = sys.stdout
    top = os.getcwd()
    state = GlobalState("\n".join(b["code"] for lesson in payload["lessons"] for b in lesson["blocks"]))
    for index, lesson in enumerate(payload["lessons"]):
        results = run_lesson(lesson, state, os.path.join(top, f"lesson-{index}"))
        real_stdout.write("\n" + RESULT_PREFIX + json.dumps({"id": lesson["id"], "results": results}) + "\n")
        real_stdout.flush()


if __name__ == "__main__":
    main()
