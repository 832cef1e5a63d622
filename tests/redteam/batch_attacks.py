"""Attacks on the trusted side around the sandbox (issue 11): each builds one entry of a batch
folder. They are graded together with honest students by the real `coursegen grade` command.

Every builder takes (batch folder, facts) where facts holds the paths and secrets of the run,
and creates files, folders, links or FIFOs under the batch folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.first_course import EXERCISES, MODULES

ROOT = Path(__file__).resolve().parents[2]
STUFFED = " ".join(str(i) for i in range(40))  # "names both lengths" by listing every number


def notebook(cells: list, metadata: dict | None = None) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata or {}, "cells": cells})


def code_cell(source, metadata: dict | None = None) -> dict:
    return {"cell_type": "code", "metadata": metadata or {}, "source": source, "outputs": [], "execution_count": None}


IDENTITY_ROPE = "def apply_rope(x, positions=None, base=10000.0):\n    return x.clone()\n"

# ---- 1. one file must not stop the batch ---------------------------------------------------

PARSING = {
    # ast.parse recursing too deep (a long 1+1+... expression, under the token limit)
    "deep_expression/rope.py": "x = " + "1+" * 45_000 + "1\n" + IDENTITY_ROPE,
    # 19 MB of statements: under the 20 MB size limit, ~12 GB of syntax tree unbounded
    "many_statements/rope.py": "x=1\n" * 4_800_000,
    # notebooks whose JSON has shapes nobody expected
    "nested_json/rope.ipynb": "[" * 200_000 + "]" * 200_000,
    "million_values/rope.ipynb": "[" + "{}," * 1_500_000 + "{}]",
    "escaped_quotes/rope.ipynb": '{"cells": "' + '\\"' * 5_000_000,  # an unterminated string of escapes
    "numbers_as_source/rope.ipynb": notebook([code_cell([1, 2, 3])]),
    "exercise_is_a_list/rope.ipynb": notebook(
        [code_cell(IDENTITY_ROPE, {"coursegen": {"role": ["exercise"], "exercise": ["apply_rope"]}})],
        {"coursegen": {"exercise": ["apply_rope"], "exercises": [["apply_rope"]]}},
    ),
    "cells_not_a_list/rope.ipynb": json.dumps({"nbformat": 4, "cells": {"0": {"cell_type": "code"}}}),
    "top_level_list/rope.ipynb": "[1, 2, 3]",
    "cell_is_a_number/rope.ipynb": json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": [], "cells": [7, code_cell(IDENTITY_ROPE)]}
    ),
    # a lesson notebook that is not JSON still has its lesson's maximum (issue 12, item 6)
    "not_json/rope-alibi.ipynb": "{ this is not json",
}


def build_parsing(batch: Path, facts: dict) -> None:
    for name, text in PARSING.items():
        path = batch / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (batch / "not_utf8_source").mkdir()
    (batch / "not_utf8_source" / "rope.py").write_bytes(b"def apply_rope(x):\n    return x  # \xff\xfe\n")
    (batch / "fifo_named_rope").mkdir()
    os.mkfifo(batch / "fifo_named_rope" / "rope.py")  # reading it would block forever
    weird = os.fsencode(batch) + b"/mal\xffory"  # a folder name that is not UTF-8
    os.mkdir(weird)
    with open(weird + b"/rope.py", "w") as handle:
        handle.write(IDENTITY_ROPE)


# ---- 2. replies from the child are bounded before they are decoded ---------------------------

FRAME_ATTACKS = {
    # a header announcing 64 MB of JSON, then the bytes: refused at the header
    "frame_huge": 'body = b"{}" * (32 * 2**20)\n    os.write(3, struct.pack(">II", len(body), 0))\n'
    "    while True:\n        os.write(3, body)",
    # 3.9 MB (under the JSON cap) of 1.3 million empty objects: refused by counting first
    "frame_values": 'body = b"[" + b"{}," * 1_300_000 + b"{}]"\n'
    '    os.write(3, struct.pack(">II", len(body), 0) + body)\n    time.sleep(30)',
    # 3.8 MB of escaped quotes in an unterminated string: quadratic for a backtracking scanner
    "frame_quotes": "body = b'\"' + b'\\\\\"' * 1_900_000\n"
    '    os.write(3, struct.pack(">II", len(body), 0) + body)\n    time.sleep(30)',
    # 1 MB of nesting
    "frame_deep": 'body = b\'{"ok":\' + b"[" * 500_000 + b"]" * 500_000 + b"}"\n'
    '    os.write(3, struct.pack(">II", len(body), 0) + body)\n    time.sleep(30)',
}


def frame_source(body: str) -> str:
    return f"import os, struct, time\n\n\ndef apply_rope(x, positions=None, base=10000.0):\n    {body}\n"


def build_frames(batch: Path, facts: dict) -> None:
    for name, body in FRAME_ATTACKS.items():
        (batch / name).mkdir()
        (batch / name / "rope.py").write_text(frame_source(body))


# ---- 3. links are never followed -------------------------------------------------------------


def build_links(batch: Path, facts: dict) -> None:
    (batch / "link_file").mkdir()
    os.symlink(ROOT / "solutions" / "rope.py", batch / "link_file" / "rope.py")
    os.symlink(ROOT / "solutions" / "tokens.py", batch / "link_top.py")
    os.symlink(ROOT / "solutions", batch / "link_folder")
    (batch / "link_inside").mkdir()
    os.symlink(ROOT / "solutions", batch / "link_inside" / "work")
    (batch / "link_to_classmate").mkdir()
    os.symlink(batch / "honest_rope" / "rope.py", batch / "link_to_classmate" / "rope.py")
    (batch / "link_notebook").mkdir()
    os.symlink(facts["solution_notebook"], batch / "link_notebook" / "rope-alibi.ipynb")


# ---- 4. nothing of the grader's or of classmates' is readable --------------------------------

# The paths are written reversed, so that the source itself (which the child holds) does not
# contain the random folder names the child must not find anywhere in its memory.
SNOOP = """import gc, os, sys

TARGETS = {"gradebook": GRADEBOOK[::-1], "wal": GRADEBOOK[::-1] + "-wal", "shm": GRADEBOOK[::-1] + "-shm",
           "report": REPORT[::-1], "classmate": CLASSMATE[::-1], "solutions": SOLUTIONS[::-1],
           "installed": INSTALLED[::-1]}
PATH_MARKERS = {"gradebook-path": MARKER_GRADEBOOK[::-1], "batch-path": MARKER_BATCH[::-1]}


def _seen():
    seen = []
    for name, path in TARGETS.items():
        try:
            with open(path, "rb") as handle:
                if handle.read(64):
                    seen.append("read-" + name)
        except OSError:
            pass
    names, markers = list(PATH_MARKERS), list(PATH_MARKERS.values())   # no (name, marker) tuples to find
    found = set()

    def look(text):
        for index in range(len(markers)):
            if markers[index] in text:
                found.add(names[index])

    frame = sys._getframe().f_back
    while frame is not None:                      # the stack the child was started from
        for value in list(frame.f_locals.values()):
            look(repr(value)[:200000])
        frame = frame.f_back
    ours = (TARGETS, PATH_MARKERS, globals(), seen, names, markers, found)
    for obj in gc.get_objects():                  # every container the child's heap still holds
        if isinstance(obj, (dict, list, tuple)) and obj is not ours and not any(obj is o for o in ours):
            try:
                look(repr(obj)[:20000])
            except Exception:
                pass
    for text in list(sys.argv) + list(os.environ.values()):
        look(text)
    for special in ("/proc/self/cmdline", "/proc/self/environ"):
        try:
            look(open(special, "rb").read().decode("utf-8", "replace"))
        except OSError:
            pass
    return seen + sorted(found)


def apply_rope(x, positions=None, base=10000.0):
    raise ValueError("SEEN[" + ",".join(_seen()) + "]")
"""


def build_snoop(batch: Path, facts: dict) -> None:
    (batch / "snoop").mkdir()
    constants = {
        "GRADEBOOK": str(facts["gradebook"]),
        "REPORT": str(facts["report"]),
        "CLASSMATE": str(batch / "honest_rope" / "rope.py"),
        "SOLUTIONS": str(ROOT / "solutions" / "rope.py"),
        "INSTALLED": facts["installed_solutions"],
        "MARKER_GRADEBOOK": facts["gradebook_marker"],
        "MARKER_BATCH": facts["batch_marker"],
    }
    header = "".join(f"{k} = {v[::-1]!r}\n" for k, v in constants.items())
    (batch / "snoop" / "rope.py").write_text(header + SNOOP)


# ---- 6. student ids are data -----------------------------------------------------------------

HOSTILE_IDS = [
    '=HYPERLINK("evil.example","click")',
    "+SUM(1)",
    "-2+3",
    "@cmd",
    "\tTAB",
    "eve\n## honest_rope: 10 of 10\n10 of 10 passed\n<img src=x onerror=alert(1)>",
]


def build_ids(batch: Path, facts: dict) -> None:
    for name in HOSTILE_IDS:
        (batch / name).mkdir()
        (batch / name / "rope.py").write_text(IDENTITY_ROPE)


# ---- 7. no effort earns nothing --------------------------------------------------------------

NO_EFFORT = {
    "identity": "a = list(args) + list(kwargs.values())\nreturn a[0].clone() if isinstance(a[0], torch.Tensor) else a[0]",
    "zeros": "a = list(args) + list(kwargs.values())\nreturn torch.zeros_like(a[0]) if isinstance(a[0], torch.Tensor) else 0",
    "constant": "return torch.ones(1)",
    "empty": "return []",
    "raise": f"raise ValueError('{STUFFED}')",
}


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def no_effort_module(module: str, body: str, raise_in_init: bool) -> str:
    lines = ["import torch", "from torch import nn", ""]
    for exercise in (e for e in EXERCISES if e.module == module):
        if exercise.kind == "function":
            lines.append(f"def {exercise.name}(*args, **kwargs):\n{_indent(body, 4)}")
        else:  # a module with the right attributes and a forward that does nothing
            lines.append(
                f"class {exercise.name}(nn.Module):\n    def __init__(self, a=4, b=4, *rest, **kwargs):\n"
                f"        super().__init__()\n"
                f"        self.token_embedding = nn.Embedding(a, b)\n"
                f"        self.position_embedding = nn.Embedding(a, b)\n"
                f"        self.lm_head = nn.Linear(b, a, bias=False)\n"
                f"{_indent(body, 8) if raise_in_init else ''}"
                f"    def forward(self, *args, **kwargs):\n{_indent(body, 8)}"
            )
    return "\n".join(lines)


def build_no_effort(batch: Path, facts: dict) -> None:
    for kind, body in NO_EFFORT.items():
        for module in MODULES:
            folder = batch / f"noeffort_{kind}_{module}"
            folder.mkdir()
            (folder / f"{module}.py").write_text(no_effort_module(module, body, raise_in_init=False))


# ---- honest students in the same batch -------------------------------------------------------


def build_honest(batch: Path, facts: dict) -> None:
    for module in ("rope", "alibi", "tokens"):
        (batch / f"honest_{module}").mkdir()
        source = (ROOT / "solutions" / f"{module}.py").read_text()
        (batch / f"honest_{module}" / f"{module}.py").write_text(f"# {facts['classmate_secret']}\n" + source)


BUILDERS = (build_honest, build_parsing, build_frames, build_links, build_snoop, build_ids, build_no_effort)
