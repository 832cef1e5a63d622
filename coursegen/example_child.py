"""The child process that runs one lesson's code examples (started by coursegen.examples).

Reads {"blocks": [{"id", "code", "filename"}]} as JSON on stdin, executes the blocks in
order in one namespace (what a block prints to stdout is its output; stderr, such as
warnings, is kept only for the error report), and writes one JSON line {"results": [{"id", "output", "error",
"line"}]} as the last line of stdout. It stops at the first block that raises.
Random generators are seeded so that outputs are the same on every run.
"""
from __future__ import annotations

import contextlib
import io
import json
import linecache
import random
import sys
import traceback


def _seed(code: str) -> None:
    random.seed(0)
    if "numpy" in code or "np." in code:
        import numpy

        numpy.random.seed(0)
    if "torch" in code:
        import torch

        torch.manual_seed(0)
        torch.set_num_threads(1)


def main() -> None:
    payload = json.loads(sys.stdin.read())
    real_stdout = sys.stdout
    namespace: dict = {"__name__": "__main__"}
    results = []
    _seed("\n".join(block["code"] for block in payload["blocks"]))
    for block in payload["blocks"]:
        captured = io.StringIO()
        diagnostics = io.StringIO()  # stderr (warnings): not shown under the code
        error, line = None, None
        linecache.cache[block["filename"]] = (len(block["code"]), None,
                                              block["code"].splitlines(True), block["filename"])
        try:
            compiled = compile(block["code"], block["filename"], "exec")
            with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(diagnostics):
                exec(compiled, namespace)
        except BaseException as exc:  # report every failure, including SystemExit
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == block["filename"]]
            line = frames[-1].lineno if frames else getattr(exc, "lineno", None)
            shown = traceback.TracebackException.from_exception(exc)
            shown.stack = traceback.StackSummary.from_list(
                [f for f in shown.stack if not f.filename.endswith("example_child.py")])
            error = diagnostics.getvalue() + "".join(shown.format())
        results.append({"id": block["id"], "output": captured.getvalue(), "error": error, "line": line})
        if error is not None:
            break
    real_stdout.write("\n" + json.dumps({"results": results}) + "\n")
    real_stdout.flush()


if __name__ == "__main__":
    main()
