"""Synthetic classes for the report tests: submissions built from the references and the
mistake catalogue (graded for real), and gradebooks written directly (for the statistics)."""
from __future__ import annotations

from pathlib import Path

from solutions.mistakes import catalogue

REPO = Path(__file__).resolve().parents[2]

# Submissions whose code misbehaves in each way the sandbox reports (module `rope`).
BROKEN = {
    "unreadable": "def apply_rope(x, positions=None, base=10000.0:\n    return x\n",
    "import_failed": "raise RuntimeError('left over from debugging')\n",
    "timeout": "while True:\n    pass\n",
    "limit": "print('x' * 400_000)\n",
    "crash": "import ctypes\n\n\ndef apply_rope(x, positions=None, base=10000.0):\n"
             "    return ctypes.string_at(0)   # reads address 0: SIGSEGV\n",
}


def reference(module: str) -> str:
    return (REPO / "solutions" / f"{module}.py").read_text(encoding="utf-8")


def with_mistake(mistake) -> str:
    """The reference module with one definition replaced by the mistake (what `verify` grades)."""
    return reference(mistake.module) + "\n\n" + mistake.source


def stub(module: str) -> str:
    return (REPO / "exercises" / f"{module}.py").read_text(encoding="utf-8")


def write_class(folder: Path, plan: list[tuple[str, str, str]]) -> None:
    """plan: (student, module, what) with what = "correct" | "stub" | a mistake id | a BROKEN key."""
    mistakes = {m.id: m for m in catalogue()}
    for student, module, what in plan:
        if what == "correct":
            code = reference(module)
        elif what == "stub":
            code = stub(module)
        elif what in BROKEN:
            code = BROKEN[what]
        else:
            code = with_mistake(mistakes[what])
        target = folder / student
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{module}.py").write_text(code, encoding="utf-8")
